package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportCommandTest {
  private static final String SYSTEM = "You are a careful assistant. ".repeat(10);
  private static final String SECRET = "the erased user's secret sentence";

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  private int export(String... args) {
    return new ExportCommand(console.fresh()).run(args);
  }

  private static byte[] chat(String... messages) {
    StringBuilder s = new StringBuilder("{\"model\":\"m\",\"messages\":[");
    for (int i = 0; i < messages.length; i += 2) {
      s.append(i > 0 ? "," : "")
          .append("{\"role\":\"")
          .append(messages[i])
          .append("\",\"content\":\"")
          .append(messages[i + 1])
          .append("\"}");
    }
    return s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A keyframe at {@code ts} with the engine's usage when given. */
  private static DeltaRecord turn(
      String session, long seq, long ts, byte[] body, Long prompt, Long completion) {
    DeltaRecord r = DeltaDump.keyframe(session, seq, body);
    ResponseInfo response =
        prompt == null && completion == null
            ? null
            : new ResponseInfo(200, 12.0, 3.0, new Usage(prompt, completion, null), "x", null);
    return DeltaDump.at(r, ts, r.model(), prompt, response);
  }

  /**
   * Session a: two turns, the second appending to the first; session b: one turn, then its
   * tombstone (erased); session c: a body that is not a chat request.
   */
  private Path dump() throws IOException {
    byte[] a1 = chat("system", SYSTEM, "user", "What is a KV cache?");
    byte[] a2 =
        chat(
            "system",
            SYSTEM,
            "user",
            "What is a KV cache?",
            "assistant",
            "Keys and values.",
            "user",
            "And a prefix cache?");
    byte[] b1 = chat("system", SYSTEM, "user", SECRET);
    byte[] c1 = "not json at all".getBytes(StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>();
    lines.add(DeltaDump.envelope("a/1", turn("a", 1, 1_700_000_001_000L, a1, 700L, 30L), 0));
    lines.add(DeltaDump.envelope("b/1", turn("b", 1, 1_700_000_001_500L, b1, 900L, 40L), 1));
    lines.add(DeltaDump.envelope("c/1", turn("c", 1, 1_700_000_002_000L, c1, null, null), 2));
    lines.add(DeltaDump.envelope("a/2", turn("a", 2, 1_700_000_003_250L, a2, null, null), 3));
    lines.add(DeltaDump.envelope("b/1", null, 4)); // the erasure
    return Files.write(dir.resolve("deltas.jsonl"), lines, StandardCharsets.UTF_8);
  }

  private static List<Long> ids(JsonNode line) {
    return ExportReaders.hashIds(line);
  }

  @Test
  void shouldExportTheSameRequestsInBothFormatsAndNothingOfAnErasedSession() throws IOException {
    // Given
    Path deltas = dump();
    Path mooncake = dir.resolve("trace.jsonl");
    Path vllm = dir.resolve("dataset.jsonl");

    // When
    int first =
        export(
            "--file",
            deltas.toString(),
            "--format",
            "mooncake",
            "--out",
            mooncake.toString(),
            "--block-bytes",
            "64",
            "--default-output-tokens",
            "99");
    String summary = console.out();
    int second =
        export(
            "--file",
            deltas.toString(),
            "--format",
            "vllm-custom",
            "--out",
            vllm.toString(),
            "--default-output-tokens",
            "99");

    // Then: a1 and a2; b was erased, c is not a chat request
    assertThat(first).as(console.err()).isEqualTo(Command.OK);
    assertThat(second).isEqualTo(Command.OK);
    assertThat(summary)
        .contains("3 rebuilt and checked, 1 erased (not exported), 0 failed their check")
        .contains("wrote 2 requests " + mooncake)
        .contains("skipped 1 (not a chat or completion request)");
    List<JsonNode> trace = ExportReaders.mooncake(mooncake);
    List<JsonNode> dataset = ExportReaders.vllmCustom(vllm);
    assertThat(trace).hasSize(2);
    assertThat(dataset).hasSize(2);

    String p1 = dataset.get(0).get("prompt").asText();
    String p2 = dataset.get(1).get("prompt").asText();
    int l1 = p1.getBytes(StandardCharsets.UTF_8).length;
    int l2 = p2.getBytes(StandardCharsets.UTF_8).length;
    assertThat(p1).contains(SYSTEM).contains("What is a KV cache?");
    assertThat(p2).startsWith(p1).endsWith("And a prefix cache?<|end|>\n");

    // timestamps relative to the first request; lengths from usage, else estimated / defaulted
    assertThat(trace.get(0).get("timestamp").asLong()).isZero();
    assertThat(trace.get(1).get("timestamp").asLong()).isEqualTo(2_250);
    assertThat(trace.get(0).get("input_length").asLong()).isEqualTo(700);
    assertThat(trace.get(1).get("input_length").asLong()).isEqualTo((l2 + 3) / 4);
    assertThat(trace.get(0).get("output_length").asLong()).isEqualTo(30);
    assertThat(trace.get(1).get("output_length").asLong()).isEqualTo(99);
    assertThat(dataset.get(0).get("output_tokens").asLong()).isEqualTo(30);
    assertThat(dataset.get(1).get("output_tokens").asLong()).isEqualTo(99);

    // one id per 64-byte block, the partial last one included; the second request repeats the
    // first one's full blocks, then goes on with new ids
    List<Long> ids1 = ids(trace.get(0));
    List<Long> ids2 = ids(trace.get(1));
    assertThat(ids1).hasSize((l1 + 63) / 64);
    assertThat(ids2).hasSize((l2 + 63) / 64);
    for (int i = 0; i < ids1.size(); i++) {
      assertThat(ids1.get(i)).isEqualTo(i);
    }
    assertThat(ids2.subList(0, l1 / 64)).isEqualTo(ids1.subList(0, l1 / 64));
    assertThat(ids2.get(l1 / 64)).isEqualTo(ids1.size());

    String written = Files.readString(mooncake, StandardCharsets.UTF_8) + Files.readString(vllm);
    assertThat(written).doesNotContain(SECRET).doesNotContain("not json");
  }

  @Test
  void shouldRefuseAValueOnlyDumpWithTombstonesItCannotPlace() throws IOException {
    // Given: records without keys and an empty line where a tombstone was
    List<String> lines =
        List.of(DeltaDump.line(turn("b", 1, 1_700_000_000_000L, chat("user", SECRET), 9L, 9L)), "");
    Path deltas = Files.write(dir.resolve("values.jsonl"), lines, StandardCharsets.UTF_8);
    Path target = dir.resolve("out.jsonl");

    // When
    int code =
        export("--file", deltas.toString(), "--format", "vllm-custom", "--out", target.toString());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err()).contains("dump with kcat -J");
    assertThat(target).doesNotExist();
  }

  @Test
  void shouldNameTheBadOption() {
    assertThat(export("--out", "x.jsonl")).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--format is required");
    assertThat(export("--format", "vllm-custom", "--out", "x.json")).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("only from a .jsonl file");
    assertThat(export("--format", "sharegpt", "--out", "x.jsonl")).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("expected mooncake or vllm-custom");
  }
}
