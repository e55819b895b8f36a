package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconstructCommandTest {
  private static List<byte[]> emoji;
  private static List<byte[]> tau;

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();
  private byte[] stdin = new byte[0];

  @BeforeAll
  static void readCorpus() {
    emoji = DeltaDump.bodies(DeltaDump.conversation(DeltaDump.HH, DeltaDump.HH_EMOJI_ID));
    tau = DeltaDump.tauWithTimestamps().subList(0, 5);
  }

  private int reconstruct(String... args) {
    return new ReconstructCommand(console.terminal(), () -> new ByteArrayInputStream(stdin))
        .run(args);
  }

  private Path dump(List<String> lines) throws IOException {
    return Files.write(dir.resolve("deltas.jsonl"), lines, StandardCharsets.UTF_8);
  }

  private static List<String> lines(List<DeltaRecord> records) {
    return new ArrayList<>(records.stream().map(DeltaDump::line).toList());
  }

  /** A keyframe, then each turn a delta against the one before. */
  private static List<DeltaRecord> chain(String session, List<byte[]> bodies) {
    List<DeltaRecord> records = new ArrayList<>();
    records.add(DeltaDump.keyframe(session, 1, bodies.get(0)));
    for (int i = 1; i < bodies.size(); i++) {
      records.add(DeltaDump.delta(session, i + 1, i, bodies.get(i - 1), bodies.get(i)));
    }
    return records;
  }

  private static long bytes(List<byte[]> bodies) {
    return bodies.stream().mapToLong(b -> b.length).sum();
  }

  @Test
  void shouldVerifyEveryTurnOfADumpAndSaySo() throws IOException {
    // Given
    List<String> lines = lines(DeltaDump.encode("emoji", emoji, 10));
    lines.addAll(lines(DeltaDump.encode("tau", tau, 3)));
    Path file = dump(lines);

    // When
    int code = reconstruct("--file", file.toString());

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out())
        .isEqualTo(
            "reconstruct: "
                + file
                + ": 8 lines, 8 records, 0 tombstones, "
                + io.prefixlog.cli.Units.bytes(Files.size(file))
                + "\n"
                + "  sessions                         2  (0 with problems)\n"
                + "  turns                            8\n"
                + "  rebuilt ok                       8  ("
                + io.prefixlog.cli.Units.bytes(bytes(emoji) + bytes(tau))
                + ")\n"
                + "  checksum mismatches              0\n"
                + "  broken chains                    0\n"
                + "  malformed                        0\n"
                + "  missing turns (gaps)             0\n"
                + "  not found                        0\n"
                + "  erased (tombstones)              0\n"
                + "  superseded                       0\n"
                + "OK: every turn was rebuilt and matched body_len and body_sha256\n");
    assertThat(console.err()).isEmpty();
  }

  /** A request metadata record as the stream app writes it: kept ({@code turn} set) or not. */
  private static String metadata(String session, long ts, String requestId, String turn)
      throws IOException {
    return Json.mapper()
        .writeValueAsString(
            new RequestMetadata(
                RequestMetadata.SCHEMA_VERSION,
                requestId,
                ts,
                session,
                "header:x-session-id",
                "POST",
                "/v1/chat/completions",
                "m",
                10L,
                "0".repeat(64),
                null,
                turn,
                turn == null ? RawRequestEvent.SAMPLED_OUT : null,
                null,
                null,
                null));
  }

  @Test
  void shouldReportSampledOutRequestsApartAndNeverAsMissing() throws IOException {
    // Given: the deltas of two kept sessions, and a metadata dump with a record for each of their
    // turns, three sampled-out requests of s-out-1 and two of s-out-2, one of which was then
    // erased (a kcat -J tombstone of its key), and a record of s-out-1 repeated (compaction had
    // not run yet)
    List<String> lines = lines(DeltaDump.encode("emoji", emoji, 10));
    lines.addAll(lines(DeltaDump.encode("tau", tau, 3)));
    Path deltas = dump(lines);
    List<String> meta = new ArrayList<>();
    for (int i = 0; i < emoji.size(); i++) {
      meta.add(metadata("emoji", 100 + i, "e" + i, "emoji/00000000/" + (i + 1)));
    }
    for (int i = 0; i < tau.size(); i++) {
      meta.add(metadata("tau", 200 + i, "t" + i, "tau/00000000/" + (i + 1)));
    }
    for (int i = 0; i < 3; i++) {
      meta.add(metadata("s-out-1", 300 + i, "o1-" + i, null));
    }
    meta.add(metadata("s-out-1", 300, "o1-0", null));
    meta.add(
        "{\"key\":\"s-out-2/400/o2-0\",\"payload\":"
            + Json.mapper().writeValueAsString(metadata("s-out-2", 400, "o2-0", null))
            + "}");
    meta.add(metadata("s-out-2", 401, "o2-1", null));
    meta.add("{\"key\":\"s-out-2/401/o2-1\",\"payload\":null}");
    Path metadataFile = Files.write(dir.resolve("metadata.jsonl"), meta, StandardCharsets.UTF_8);
    int kept = emoji.size() + tau.size();

    // When
    int code = reconstruct("--file", deltas.toString(), "--metadata-file", metadataFile.toString());
    String all = console.out();
    console.reset();
    int oneSession =
        reconstruct(
            "--file",
            deltas.toString(),
            "--metadata-file",
            metadataFile.toString(),
            "--session",
            "tau");

    // Then: 4 requests sampled out in 2 sessions, reported apart; none missing; the verdict OK
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(all)
        .contains(
            "  missing turns (gaps)             0\n",
            "  superseded                       0\n"
                + "sampled out: 4 requests of "
                + (kept + 4)
                + String.format(java.util.Locale.ROOT, " (%.1f %%)", 100.0 * 4 / (kept + 4))
                + " in 2 sessions: metadata only, not missing\n"
                + "OK: every turn was rebuilt and matched body_len and body_sha256\n");
    assertThat(oneSession).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "sampled out: 0 requests of "
                + tau.size()
                + " (0.0 %) in 0 sessions: metadata only, not missing\n");
  }

  @Test
  void shouldSayNothingOfSamplingWithoutMetadata() throws IOException {
    // Given
    Path deltas = dump(lines(DeltaDump.encode("tau", tau, 3)));

    // When
    int code = reconstruct("--file", deltas.toString());

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out()).doesNotContain("sampled out");
  }

  @Test
  void shouldListTheProblemsAndFailWhenAnInsertIsCorrupted() throws IOException {
    // Given: turn 2's insert has one character changed; turn 3 is based on turn 2
    List<DeltaRecord> records = new ArrayList<>(chain("emoji", emoji));
    DeltaRecord second = records.get(1);
    List<DeltaOp> ops = new ArrayList<>(second.ops());
    for (int i = 0; i < ops.size(); i++) {
      if (ops.get(i) instanceof DeltaOp.Insert insert) {
        ops.set(i, new DeltaOp.Insert("#" + insert.text().substring(1)));
        break;
      }
    }
    records.set(
        1,
        DeltaDump.record(
            "emoji", 2, "delta", null, null, 1L, second.baseSha256(), ops, emoji.get(1)));
    Path file = dump(lines(records));

    // When
    int code = reconstruct("--file", file.toString(), "--quiet");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.out()).isEmpty();
    assertThat(console.err())
        .contains("  checksum mismatches              1\n")
        .contains("  broken chains                    1\n")
        .contains(
            "first problems (2 of 2):\n  checksum mismatch session emoji seq 2: sha256 of the rebuilt body is ")
        .contains(
            ", body_sha256 says "
                + Sha256.hex(emoji.get(1)).substring(0, 16)
                + "… (at "
                + file
                + ":2)\n")
        .contains(
            "  broken chain session emoji seq 3: base turn 2 was not rebuilt (first failure: turn 2:"
                + " sha256 of the rebuilt body is ")
        .endsWith(
            "FAILED: 2 failures (mismatches, broken chains, malformed records, missing turns, turns"
                + " not found)\n");
  }

  @Test
  void shouldWriteVerifiedBodiesUnderOutWithSafeNames() throws IOException {
    // Given
    List<String> lines = lines(DeltaDump.encode("../emoji", emoji, 10));
    Path file = dump(lines);

    // When
    int code =
        reconstruct(
            "--file", file.toString(), "--out", dir.resolve("bodies").toString(), "--quiet");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out()).isEmpty();
    for (int seq = 1; seq <= 3; seq++) {
      assertThat(dir.resolve("bodies/..%2Femoji/" + seq + ".body"))
          .hasBinaryContent(emoji.get(seq - 1));
    }
  }

  @Test
  void shouldPrintExactlyOneTurnsBytesWithTheSummaryOnStderr() throws IOException {
    // Given
    List<DeltaRecord> records = DeltaDump.encode("tau", tau, 10);
    Path file = dump(lines(records));

    // When
    int code = reconstruct("--file", file.toString(), "--session", "tau", "--seq", "4", "--print");

    // Then: only the chain 4, 3, 1 was rebuilt
    assertThat(records.get(3).baseSeq()).isEqualTo(3);
    assertThat(records.get(2).baseSeq()).isEqualTo(1);
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.outBytes()).isEqualTo(tau.get(3));
    assertThat(console.err())
        .contains("  turns                            3\n")
        .endsWith("matched body_len and body_sha256\n");
  }

  @Test
  void shouldReadKcatEnvelopesWithTombstonesFromStdin() throws IOException {
    // Given: turn 2 erased after it was written; turn 3 is based on it
    List<DeltaRecord> records = chain("emoji", emoji);
    List<String> lines = new ArrayList<>();
    for (DeltaRecord r : records) {
      lines.add(DeltaDump.envelope(DeltaRecord.key("emoji", null, r.seq()), r, r.seq()));
    }
    lines.add(DeltaDump.envelope("emoji/2", null, 4));
    stdin = (String.join("\r\n", lines) + "\r\n").getBytes(StandardCharsets.UTF_8);

    // When
    int code = reconstruct("--file", "-");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.out())
        .startsWith("reconstruct: stdin: 4 lines, 3 records, 1 tombstone, ")
        .contains("  rebuilt ok                       1  ")
        .contains("  erased (tombstones)              1\n")
        .contains("  superseded                       1\n")
        .contains("  broken chain session emoji seq 3: base turn 2 was erased (at stdin:3)\n");
  }

  @Test
  void shouldReportLinesThatAreNotRecordsWithTheirLineNumbers() throws IOException {
    // Given
    List<String> lines = lines(DeltaDump.encode("emoji", emoji, 10));
    lines.add(1, "");
    lines.add("null");
    lines.add("[1,2]");
    lines.add("{\"session_key\":\"emoji\"");
    lines.add("{\"kind\":\"full\"}");
    lines.add("{\"key\":\"nope\",\"payload\":\"{}\"}");
    Path file = dump(lines);

    // When
    int code = reconstruct("--file", file.toString());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.out())
        .contains(": 9 lines, 5 records, 0 tombstones, ")
        .contains(
            "\n  note: 2 empty or null lines: tombstones, whose keys a value-only dump does not keep (dump with kcat -J to keep them)\n")
        .contains("  rebuilt ok                       3  ")
        .contains("  malformed                        4\n")
        .contains("  malformed: not a JSON object (at " + file + ":6)\n")
        .contains(
            "  malformed: not a JSON line: cannot read DeltaRecord: JsonEOFException at line 1 column 23 (at "
                + file
                + ":7)\n")
        .contains("  malformed: record has no session_key and seq >= 1 (at " + file + ":8)\n")
        .contains(
            "  malformed: envelope key is not session_key/chain/seq nor session_key/seq (at "
                + file
                + ":9)\n");
  }

  @Test
  void shouldFailOnAnEmptyInput() throws IOException {
    // Given
    Path file = dump(List.of());

    // When
    int code = reconstruct("--file", file.toString());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.out())
        .endsWith("  superseded                       0\nFAILED: no delta records in the input\n");
  }

  @Test
  void shouldFailWhenTheRequestedTurnIsNotThere() throws IOException {
    // Given
    Path file = dump(lines(DeltaDump.encode("tau", tau, 10)));

    // When
    int code = reconstruct("--file", file.toString(), "--session", "tau", "--seq", "9", "--print");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.outBytes()).isEmpty();
    assertThat(console.err())
        .contains("  not found session tau seq 9: turn 9 is not in the input\n");
  }

  @Test
  void shouldTolerateGapsOnlyWhenAllowed() throws IOException {
    // Given: keyframes 1, 2 and 5
    List<String> lines = new ArrayList<>();
    for (int seq : new int[] {1, 2, 5}) {
      lines.add(DeltaDump.line(DeltaDump.keyframe("tau", seq, tau.get(seq - 1))));
    }
    Path file = dump(lines);

    // When
    int strict = reconstruct("--file", file.toString());
    String strictOut = console.out();
    console.reset();
    int allowed = reconstruct("--file", file.toString(), "--allow-gaps");

    // Then
    assertThat(strict).isEqualTo(Command.FAILED);
    assertThat(strictOut).contains("  gap session tau seq 3: turns 3 to 4 are missing (2 turns)\n");
    assertThat(allowed).isEqualTo(Command.OK);
    assertThat(console.out()).contains("  missing turns (gaps)             2  (allowed)\n");
  }

  @Test
  void shouldRejectInconsistentOptionsNamingThem() {
    assertThat(reconstruct("--seq", "3")).isEqualTo(Command.USAGE);
    assertThat(reconstruct("--session", "s", "--print")).isEqualTo(Command.USAGE);
    assertThat(reconstruct("--file", dir.resolve("none.jsonl").toString()))
        .isEqualTo(Command.USAGE);
    assertThat(reconstruct("--bootstrap", "localhost")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog reconstruct: --seq needs --session: a seq is only unique within a session\n"
                + "prefixlog reconstruct: --print needs --session and --seq: it writes one body\n"
                + "prefixlog reconstruct: --file "
                + dir.resolve("none.jsonl")
                + ": no such file\n"
                + "prefixlog reconstruct: --bootstrap needs HOST:PORT[,HOST:PORT...], got"
                + " 'localhost'\n");
  }

  @Test
  void shouldPrintHelpWithEveryOption() {
    // When
    int code = reconstruct("--help");

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .isEqualTo(
            new ReconstructCommand(
                    Terminal.captured(new ByteArrayOutputStream(), new ByteArrayOutputStream()))
                .help());
    for (String option :
        List.of(
            "bootstrap",
            "topic-prefix",
            "file",
            "metadata-file",
            "session",
            "seq",
            "out",
            "print",
            "allow-gaps",
            "quiet",
            "progress",
            "help")) {
      assertThat(console.out()).contains("  --" + option);
    }
  }
}
