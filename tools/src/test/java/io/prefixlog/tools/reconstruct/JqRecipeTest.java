package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.prefixlog.cli.Terminal;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the jq recipe of {@code docs/rebuild-with-jq.md}, taken from the document itself so that the
 * two cannot drift, and checks its bytes against {@code prefixlog reconstruct --print}. Needs jq
 * (1.6 or later) on the PATH: without it the test fails, it does not skip.
 */
class JqRecipeTest {
  private static final Pattern BLOCK =
      Pattern.compile("<!-- test: ([\\w.]+) -->\\s*\\n```\\w*\\n(.*?)\\n```", Pattern.DOTALL);

  private static Map<String, String> blocks;
  private static List<byte[]> tau;
  private static List<byte[]> emoji;
  private static List<byte[]> oasst;

  @TempDir Path dir;

  @BeforeAll
  static void readDocAndCorpus() throws IOException {
    requireJq();
    String doc =
        Files.readString(
            DeltaDump.root().resolve("docs/rebuild-with-jq.md"), StandardCharsets.UTF_8);
    blocks = new HashMap<>();
    Matcher m = BLOCK.matcher(doc);
    while (m.find()) {
      blocks.put(m.group(1), m.group(2));
    }
    assertThat(blocks).containsOnlyKeys("envelopes", "rebuild.jq", "run", "check");
    tau = DeltaDump.tauWithTimestamps();
    emoji = DeltaDump.bodies(DeltaDump.conversation(DeltaDump.HH, DeltaDump.HH_EMOJI_ID));
    oasst = DeltaDump.bodies(DeltaDump.nonAsciiConversation(DeltaDump.OASST, 3));
  }

  private static void requireJq() {
    try {
      Process p = new ProcessBuilder("jq", "--version").redirectErrorStream(true).start();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        fail("jq --version failed: install jq 1.6 or later (apt-get install jq)");
      }
    } catch (IOException e) {
      fail("jq is not installed: install jq 1.6 or later (apt-get install jq) to run this test", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(e);
    }
  }

  /** Three sessions plus noise, shuffled, with empty lines where tombstones were. */
  private List<DeltaRecord> writeDump() throws IOException {
    List<DeltaRecord> records = new ArrayList<>();
    records.addAll(DeltaDump.encode("tau", tau, 6));
    records.addAll(DeltaDump.encode("emoji", emoji, 10));
    records.addAll(DeltaDump.encode("oasst", oasst, 10));
    records.add(DeltaDump.keyframe("binary", 1, new byte[] {'{', (byte) 0xFF, '}'}));
    List<String> lines = new ArrayList<>();
    records.forEach(r -> lines.add(DeltaDump.line(r)));
    lines.add("");
    lines.add("");
    Collections.shuffle(lines, new Random(3));
    Files.write(dir.resolve("deltas.jsonl"), lines, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("rebuild.jq"), blocks.get("rebuild.jq"), StandardCharsets.UTF_8);
    return records;
  }

  @Test
  void shouldRebuildTheSameBytesAsTheReconstructTool() throws Exception {
    // Given
    List<DeltaRecord> records = writeDump();
    Map<String, List<byte[]>> sessions = Map.of("tau", tau, "emoji", emoji, "oasst", oasst);
    List<String[]> turns =
        List.of(
            new String[] {"tau", "1"},
            new String[] {"tau", "2"},
            new String[] {"tau", "6"},
            new String[] {"tau", "9"},
            new String[] {"tau", "" + tau.size()},
            new String[] {"emoji", "3"},
            new String[] {"oasst", "" + oasst.size()});

    // Then: the fixture has copies at non-zero offsets, a base other than seq-1, and astral text
    assertThat(records)
        .anySatisfy(
            r ->
                assertThat(r.ops())
                    .isNotNull()
                    .anySatisfy(
                        op ->
                            assertThat(op)
                                .isInstanceOfSatisfying(
                                    DeltaOp.Copy.class, c -> assertThat(c.from()).isPositive())));
    assertThat(records).anySatisfy(r -> assertThat(r.baseSeq()).isEqualTo(r.seq() - 2));
    assertThat(new String(emoji.get(2), StandardCharsets.UTF_8)).contains("👌🏾👍🏾");

    for (String[] turn : turns) {
      // When
      Result jq = bash(blocks.get("run"), turn[0], turn[1]);
      byte[] jqBody = Files.readAllBytes(dir.resolve("turn.body"));
      byte[] toolBody =
          reconstruct(
              "--file",
              dir.resolve("deltas.jsonl").toString(),
              "--session",
              turn[0],
              "--seq",
              turn[1],
              "--print");

      // Then
      byte[] original = sessions.get(turn[0]).get(Integer.parseInt(turn[1]) - 1);
      assertThat(jq.exit).as(jq.err).isZero();
      assertThat(jqBody).as("jq rebuild of %s/%s", turn[0], turn[1]).isEqualTo(original);
      assertThat(toolBody).isEqualTo(jqBody);
    }
  }

  @Test
  void shouldRebuildATurnOfEitherChainOfASessionWhoseChainsShareSeqs() throws Exception {
    // Given: version 3 records of one session with two chains, each numbered from 1 (the stream
    // app lost the session's state between them): tau's turns, then emoji's
    List<String> lines = new ArrayList<>();
    for (DeltaRecord r : DeltaDump.encode("s", tau, 6)) {
      lines.add(inChain(DeltaDump.line(r), "aaaaaaaa"));
    }
    for (DeltaRecord r : DeltaDump.encode("s", emoji, 10)) {
      lines.add(inChain(DeltaDump.line(r), "bbbbbbbb"));
    }
    Collections.shuffle(lines, new Random(5));
    Files.write(dir.resolve("deltas.jsonl"), lines, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("rebuild.jq"), blocks.get("rebuild.jq"), StandardCharsets.UTF_8);

    // When
    Result first = bash(blocks.get("run"), "s", "aaaaaaaa", "2");
    byte[] firstBody = Files.readAllBytes(dir.resolve("turn.body"));
    Result second = bash(blocks.get("run"), "s", "bbbbbbbb", "2");
    byte[] secondBody = Files.readAllBytes(dir.resolve("turn.body"));
    Result check = bash(blocks.get("check"), "s", "bbbbbbbb", "2");
    byte[] toolBody =
        reconstruct(
            "--file",
            dir.resolve("deltas.jsonl").toString(),
            "--session",
            "s",
            "--chain",
            "bbbbbbbb",
            "--seq",
            "2",
            "--print");

    // Then
    assertThat(first.exit).as(first.err).isZero();
    assertThat(second.exit).as(second.err).isZero();
    assertThat(firstBody).isEqualTo(tau.get(1));
    assertThat(secondBody).isEqualTo(emoji.get(1)).isEqualTo(toolBody);
    assertThat(check.exit).as(check.err).isZero();
  }

  /** A version 2 record line as version 3 in {@code chain}. */
  private static String inChain(String line, String chain) throws IOException {
    com.fasterxml.jackson.databind.node.ObjectNode tree =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            io.prefixlog.schemas.json.Json.mapper().readTree(line);
    tree.put("schema_version", DeltaRecord.SCHEMA_VERSION);
    tree.put("chain", chain);
    return io.prefixlog.schemas.json.Json.mapper().writeValueAsString(tree);
  }

  @Test
  void shouldRebuildADeltaWhoseBaseIsABase64KeyframeOfUtf8Text() throws Exception {
    // Given: a keyframe of UTF-8 text stored as base64, as the stream app writes a body its
    // producer sent in base64 or one whose JSON text would not fit a record (record_size), and
    // deltas based on it
    List<String> lines = new ArrayList<>();
    lines.add(
        DeltaDump.line(
            DeltaDump.record(
                "b64",
                1,
                DeltaRecord.KIND_FULL,
                java.util.Base64.getEncoder().encodeToString(emoji.get(0)),
                "base64",
                null,
                null,
                null,
                emoji.get(0))));
    lines.add(DeltaDump.line(DeltaDump.delta("b64", 2, 1, emoji.get(0), emoji.get(1))));
    lines.add(DeltaDump.line(DeltaDump.delta("b64", 3, 2, emoji.get(1), emoji.get(2))));
    Files.write(dir.resolve("deltas.jsonl"), lines, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("rebuild.jq"), blocks.get("rebuild.jq"), StandardCharsets.UTF_8);

    // When
    Result jq = bash(blocks.get("run"), "b64", "3");
    byte[] jqBody = Files.readAllBytes(dir.resolve("turn.body"));
    Result check = bash(blocks.get("check"), "b64", "3");
    byte[] toolBody =
        reconstruct(
            "--file",
            dir.resolve("deltas.jsonl").toString(),
            "--session",
            "b64",
            "--seq",
            "3",
            "--print");

    // Then
    assertThat(jq.exit).as(jq.err).isZero();
    assertThat(jqBody).isEqualTo(emoji.get(2)).isEqualTo(toolBody);
    assertThat(check.exit).as(check.err).isZero();
  }

  @Test
  void shouldCheckTheRebuiltBodyAgainstBodySha256() throws Exception {
    // Given
    writeDump();
    String seq = "" + tau.size();
    assertThat(bash(blocks.get("run"), "tau", seq).exit).isZero();

    // When
    Result good = bash(blocks.get("check"), "tau", seq);
    byte[] body = Files.readAllBytes(dir.resolve("turn.body"));
    body[body.length / 2] ^= 1;
    Files.write(dir.resolve("turn.body"), body);
    Result bad = bash(blocks.get("check"), "tau", seq);

    // Then
    String expected = Sha256.hex(tau.get(tau.size() - 1));
    assertThat(good.exit).isZero();
    assertThat(good.out).isEqualTo("OK: " + expected + "\n");
    assertThat(bad.exit).isEqualTo(1);
    assertThat(bad.err)
        .isEqualTo("MISMATCH: body_sha256 is " + expected + ", rebuilt " + Sha256.hex(body) + "\n");
  }

  @Test
  void shouldStopWithAnErrorAtAMissingTurnOrABase64Keyframe() throws Exception {
    // Given
    writeDump();

    // When
    Result missing = bash(blocks.get("run"), "tau", "99");
    Result binary = bash(blocks.get("run"), "binary", "1");

    // Then
    assertThat(missing.exit).isEqualTo(5);
    assertThat(missing.err).contains("turn 99 of session tau is not in the dump");
    assertThat(binary.exit).isEqualTo(5);
    assertThat(binary.err)
        .contains("turn 1 is not UTF-8 (a base64 keyframe): use prefixlog reconstruct");
  }

  @Test
  void shouldTurnKcatEnvelopesIntoADumpThatHonoursTombstones() throws Exception {
    // Given: emoji turns as envelopes, turn 2 first damaged then re-written, turn 3 erased
    List<DeltaRecord> records = DeltaDump.encode("emoji", emoji, 10);
    List<String> lines = new ArrayList<>();
    long offset = 0;
    DeltaRecord damaged =
        DeltaDump.delta("emoji", 2, 1, emoji.get(0), emoji.get(0)); // rebuilds turn 1's bytes
    lines.add(DeltaDump.envelope("emoji/2", damaged, offset++));
    for (DeltaRecord r : records) {
      lines.add(DeltaDump.envelope(DeltaRecord.key("emoji", null, r.seq()), r, offset++));
    }
    lines.add(DeltaDump.envelope("emoji/3", null, offset));
    Files.write(dir.resolve("envelopes.jsonl"), lines, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("rebuild.jq"), blocks.get("rebuild.jq"), StandardCharsets.UTF_8);

    // When
    Result converted = bash(blocks.get("envelopes"), "emoji", "2");
    Result second = bash(blocks.get("run"), "emoji", "2");
    byte[] secondBody = Files.readAllBytes(dir.resolve("turn.body"));
    Result third = bash(blocks.get("run"), "emoji", "3");

    // Then
    assertThat(converted.exit).as(converted.err).isZero();
    assertThat(Files.readAllLines(dir.resolve("deltas.jsonl"))).hasSize(2);
    assertThat(second.exit).isZero();
    assertThat(secondBody).isEqualTo(emoji.get(1));
    assertThat(third.exit).isEqualTo(5);
    assertThat(third.err).contains("turn 3 of session emoji is not in the dump");
  }

  @Test
  void shouldSliceStringsByCodePointsInThisJq() throws Exception {
    // Given
    String program =
        "\"aé😀b\"[1:3], (\"aé😀b\" | length), (\"👌🏾👍🏾\" | length), \"👌🏾👍🏾\"[1:3]";

    // When
    Process p = new ProcessBuilder("jq", "-n", "-c", program).directory(dir.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);

    // Then
    assertThat(out).isEqualTo("\"é😀\"\n4\n4\n\"🏾👍\"\n");
  }

  private byte[] reconstruct(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Terminal terminal =
        new Terminal(new PrintStream(out, true), new PrintStream(err, true), Map.of(), false);
    int code = new ReconstructCommand(terminal).run(args);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toByteArray();
  }

  private Result bash(String script, String session, String seq) throws Exception {
    return bash(script, session, "", seq);
  }

  private Result bash(String script, String session, String chain, String seq) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("bash", "-c", script).directory(dir.toFile());
    builder.environment().put("SESSION", session);
    builder.environment().put("CHAIN", chain);
    builder.environment().put("SEQ", seq);
    Process p = builder.start();
    p.getOutputStream().close();
    // Small outputs (bodies go to turn.body): reading one stream after the other cannot block.
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("bash did not finish: " + script);
    }
    return new Result(p.exitValue(), out, err);
  }

  private record Result(int exit, String out, String err) {}
}
