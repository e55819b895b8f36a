package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Outcome;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.tools.CapturedTerminal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconstructServiceTest {
  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  private ReconstructService service() {
    return new ReconstructService(console.terminal(), () -> new ByteArrayInputStream(new byte[0]));
  }

  private Path dump(List<DeltaRecord> records) throws IOException {
    return Files.write(
        dir.resolve("deltas.jsonl"),
        records.stream().map(DeltaDump::line).toList(),
        StandardCharsets.UTF_8);
  }

  @Test
  void shouldPrintTheOneTurnAskedForAndCountTheTurnsItRebuilt() throws IOException {
    // Given
    List<byte[]> tau = DeltaDump.tauWithTimestamps().subList(0, 5);
    Path file = dump(DeltaDump.encode("tau", tau, 10));

    // When
    ReconstructService.Result result =
        service()
            .run(
                ReconstructRequest.builder()
                    .file(file)
                    .scope(new RebuildScope("tau", null, 4L))
                    .print()
                    .quiet()
                    .build());

    // Then: the chain 4, 3, 1 rebuilt, turn 4's bytes on out, nothing else printed
    assertThat(result.outcome()).as(console.err()).isEqualTo(Outcome.DONE);
    assertThat(result.counts().turns()).isEqualTo(3);
    assertThat(result.counts().rebuiltOk()).isEqualTo(3);
    assertThat(console.outBytes()).isEqualTo(tau.get(3));
    assertThat(console.errBytes()).isEmpty();
  }

  @Test
  void shouldFailWithTheSummaryOnErrWhenTheInputHoldsNoDeltas() throws IOException {
    // Given
    Path file = dump(List.of());

    // When
    ReconstructService.Result result =
        service().run(ReconstructRequest.builder().file(file).quiet().build());

    // Then
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.counts().turns()).isZero();
    assertThat(console.outBytes()).isEmpty();
    assertThat(console.err()).endsWith("FAILED: no delta records in the input\n");
  }
}
