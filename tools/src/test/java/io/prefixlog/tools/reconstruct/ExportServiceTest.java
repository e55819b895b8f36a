package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Outcome;
import io.prefixlog.tools.CapturedTerminal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportServiceTest {
  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  private static byte[] chat(String question) {
    return ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + question + "\"}]}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private ExportRequest request(Path dump, Path target) {
    return new ExportRequest(
        ExportFormat.VLLM_CUSTOM, target, "127.0.0.1:1", "prefixlog.", dump, 2048, 256, false);
  }

  @Test
  void shouldWriteOneLinePerChatRequestAndNameTheFile() throws IOException {
    // Given
    Path dump =
        Files.write(
            dir.resolve("deltas.jsonl"),
            List.of(
                DeltaDump.line(DeltaDump.keyframe("a", 1, chat("What is a KV cache?"))),
                DeltaDump.line(DeltaDump.keyframe("b", 1, chat("And a prefix cache?")))),
            StandardCharsets.UTF_8);
    Path target = dir.resolve("out/dataset.jsonl");

    // When
    ExportService.Result result = new ExportService(console.terminal()).run(request(dump, target));

    // Then
    assertThat(result)
        .as(console.err())
        .isEqualTo(new ExportService.Result(Outcome.DONE, target, 2));
    assertThat(Files.readAllLines(target)).hasSize(2);
    assertThat(console.out()).contains("  wrote 2 requests " + target + " as vllm-custom\n");
  }

  @Test
  void shouldWriteNothingWhenThereIsNoRequestToExport() throws IOException {
    // Given
    Path dump = Files.write(dir.resolve("deltas.jsonl"), List.of(), StandardCharsets.UTF_8);
    Path target = dir.resolve("dataset.jsonl");

    // When
    ExportService.Result result = new ExportService(console.terminal()).run(request(dump, target));

    // Then
    assertThat(result).isEqualTo(new ExportService.Result(Outcome.FAILED, null, 0));
    assertThat(target).doesNotExist();
    assertThat(console.out()).endsWith("FAILED: no chat or completion request to export\n");
  }
}
