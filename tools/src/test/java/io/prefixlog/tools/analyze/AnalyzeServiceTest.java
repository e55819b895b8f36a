package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.analyze.TraceLines.Req;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyzeServiceTest {
  @TempDir Path dir;

  private Path trace() throws IOException {
    return Files.write(
        dir.resolve("tiny.jsonl"),
        List.of(
                Req.of(1_763_700_000.5, "m", 4, 10, 0xa, 0xb),
                Req.of(1_763_700_001.5, "m", 4, 12, 0xa, 0xb, 0xc),
                Req.of(1_763_700_002.5, "m", 4, 9, 0xd, 0xa))
            .stream()
            .map(r -> TraceLines.prefixlog(r, "tokens"))
            .toList(),
        StandardCharsets.UTF_8);
  }

  @Test
  void shouldPrintWhatTheCommandPrintsAndNameTheFilesItWrote() throws IOException {
    // Given
    Path file = trace();
    Path byService = dir.resolve("service");
    Path byCommand = dir.resolve("command");
    ByteArrayOutputStream serviceOut = new ByteArrayOutputStream();
    ByteArrayOutputStream commandOut = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    // When
    AnalyzeService.Result result =
        new AnalyzeService(Terminal.captured(serviceOut, err))
            .run(
                AnalyzeRequest.builder().files(List.of(file)).csv(byService).routing(2, 2).build());
    int code =
        new AnalyzeCommand(Terminal.captured(commandOut, err))
            .run(
                new String[] {
                  "--file",
                  file.toString(),
                  "--csv",
                  byCommand.toString(),
                  "--replicas",
                  "2",
                  "--replica-capacity",
                  "2"
                });

    // Then
    assertThat(result.outcome()).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Outcome.DONE);
    assertThat(code).isZero();
    assertThat(result.written())
        .containsExactly(
            byService.resolve("routing.csv"),
            byService.resolve("curve.csv"),
            byService.resolve("rolling.csv"));
    assertThat(serviceOut.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            commandOut.toString(StandardCharsets.UTF_8).replace(byCommand + "/", byService + "/"));
    assertThat(Files.readString(byService.resolve("curve.csv")))
        .isEqualTo(Files.readString(byCommand.resolve("curve.csv")));
  }

  @Test
  void shouldFailAndWriteNothingWhenTheFileIsMissing() {
    // Given
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path missing = dir.resolve("missing.jsonl");

    // When
    AnalyzeService.Result result =
        new AnalyzeService(Terminal.captured(out, err))
            .run(AnalyzeRequest.builder().files(List.of(missing)).png(dir).build());

    // Then
    assertThat(result).isEqualTo(new AnalyzeService.Result(Outcome.FAILED, List.of()));
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("prefixlog analyze: --file " + missing + ": no such file or directory\n");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }
}
