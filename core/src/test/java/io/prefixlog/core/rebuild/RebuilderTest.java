package io.prefixlog.core.rebuild;

import static io.prefixlog.core.rebuild.Records.delta;
import static io.prefixlog.core.rebuild.Records.keyframe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.delta.BaseBodies;
import io.prefixlog.core.delta.DeltaRecords;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.rebuild.Problem.Kind;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RebuilderTest {
  private static final String TAU = "agentic/tau_bench_gpt4o_airline.jsonl";
  private static final String TAU_ID = "tau-airline-gpt4o-task0-trial0";
  private static final String HH = "chat/hh_rlhf_harmless_base_test.jsonl";
  private static final String HH_EMOJI_ID = "hh_rlhf_harmless_base_test-1588";
  private static final String DEFAULT_PROMPT =
      "You are a helpful assistant. Réponds brièvement. 🙂";

  private static List<byte[]> tauTurns;
  private static List<byte[]> emojiTurns;

  /** Tau-bench turns whose system prompt carries a timestamp that changes every turn. */
  private static synchronized List<byte[]> tauTurns() {
    if (tauTurns == null) {
      tauTurns = List.copyOf(readTauTurns());
    }
    return tauTurns;
  }

  private static List<byte[]> readTauTurns() {
    String system = CorpusTurns.systemMessage(TAU, TAU_ID);
    return CorpusTurns.bodies(
        TAU,
        TAU_ID,
        turn ->
            system.replace(
                "2024-05-15 15:00:00",
                String.format("2024-05-15 15:%02d:%02d", turn, turn * 7 % 60)));
  }

  /** Three turns of a chat with curly quotes and emoji (astral code points) in the history. */
  private static synchronized List<byte[]> emojiTurns() {
    if (emojiTurns == null) {
      emojiTurns = List.copyOf(CorpusTurns.bodies(HH, HH_EMOJI_ID, turn -> DEFAULT_PROMPT));
    }
    return emojiTurns;
  }

  /** Keyframe, then each turn a delta against the previous one. */
  private static List<DeltaRecord> chain(String session, List<byte[]> bodies) {
    List<DeltaRecord> records = new ArrayList<>();
    records.add(keyframe(session, 1, bodies.get(0)));
    for (int i = 1; i < bodies.size(); i++) {
      records.add(delta(session, i + 1, i, bodies.get(i - 1), bodies.get(i)));
    }
    return records;
  }

  @Test
  void shouldRebuildEveryTurnByteForByteFromShuffledInput() {
    // Given: two sessions, one delta per turn, the tau ones with a timestamp edit in the prefix
    List<byte[]> tau = tauTurns();
    List<byte[]> emoji = emojiTurns();
    List<DeltaRecord> records = new ArrayList<>(chain("tau", tau));
    records.addAll(chain("emoji", emoji));
    Collections.shuffle(records, new Random(7));
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    records.forEach(r -> rebuilder.add(r, "test"));
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(tau).hasSize(15);
    assertThat(emoji).hasSize(3);
    assertThat(records.stream().filter(r -> !r.isKeyframe()).count()).isEqualTo(16);
    assertThat(report.problems()).isEmpty();
    assertThat(report.passed(false)).isTrue();
    assertThat(report.sessions()).isEqualTo(2);
    long bytes = tau.stream().mapToLong(b -> b.length).sum();
    bytes += emoji.stream().mapToLong(b -> b.length).sum();
    assertThat(report.counts()).isEqualTo(new Counts(18, 18, 0, 0, 0, 0, 0, 0, bytes));
    assertThat(collector.order)
        .containsExactlyElementsOf(
            List.of(
                "emoji/1",
                "emoji/2",
                "emoji/3",
                "done emoji",
                "tau/1",
                "tau/2",
                "tau/3",
                "tau/4",
                "tau/5",
                "tau/6",
                "tau/7",
                "tau/8",
                "tau/9",
                "tau/10",
                "tau/11",
                "tau/12",
                "tau/13",
                "tau/14",
                "tau/15",
                "done tau"));
    for (int i = 0; i < tau.size(); i++) {
      assertThat(collector.bodies.get("tau/" + (i + 1))).isEqualTo(tau.get(i));
    }
    for (int i = 0; i < emoji.size(); i++) {
      assertThat(collector.bodies.get("emoji/" + (i + 1))).isEqualTo(emoji.get(i));
    }
  }

  @Test
  void shouldEncodeTheTimestampEditAsCopiesWithNonZeroOffsets() {
    // Given
    List<byte[]> tau = tauTurns();

    // When
    DeltaRecord second = delta("tau", 2, 1, tau.get(0), tau.get(1));

    // Then: copy of the prefix up to the timestamp, the edit, copy from past the edit onwards
    assertThat(second.ops().get(0)).isInstanceOf(DeltaOp.Copy.class);
    assertThat(((DeltaOp.Copy) second.ops().get(0)).from()).isZero();
    assertThat(second.ops())
        .anySatisfy(
            op ->
                assertThat(op)
                    .isInstanceOfSatisfying(
                        DeltaOp.Copy.class, copy -> assertThat(copy.from()).isPositive()));
  }

  @Test
  void shouldRebuildDeltasWhoseBaseIsAnEarlierTurnThanThePreviousOne() {
    // Given: 3 and 4 both encoded against 2 (a regeneration), 5 against 3
    List<byte[]> t = tauTurns();
    byte[] regenerated =
        (new String(t.get(2), StandardCharsets.UTF_8) + " ").getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.add(keyframe("s", 1, t.get(0)), "l1");
    rebuilder.add(delta("s", 2, 1, t.get(0), t.get(1)), "l2");
    rebuilder.add(delta("s", 3, 2, t.get(1), t.get(2)), "l3");
    rebuilder.add(delta("s", 4, 2, t.get(1), regenerated), "l4");
    rebuilder.add(delta("s", 5, 3, t.get(2), t.get(3)), "l5");
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().rebuiltOk()).isEqualTo(5);
    assertThat(collector.bodies.get("s/4")).isEqualTo(regenerated);
    assertThat(collector.bodies.get("s/5")).isEqualTo(t.get(3));
  }

  @Test
  void shouldReportAMismatchWithSessionAndSeqWhenAnInsertIsCorrupted() {
    // Given: one character of turn 3's insert changed (same length, so only the digest differs)
    List<byte[]> t = emojiTurns();
    List<DeltaRecord> records = chain("s", t);
    DeltaRecord third = records.get(2);
    List<DeltaOp> ops = new ArrayList<>(third.ops());
    int insertAt = indexOfInsert(ops);
    String text = ((DeltaOp.Insert) ops.get(insertAt)).text();
    String corrupted = (text.charAt(0) == 'x' ? "y" : "x") + text.substring(1);
    ops.set(insertAt, new DeltaOp.Insert(corrupted));
    records.set(2, Records.replaceOps(third, ops));
    byte[] wrong = rebuild(t.get(1), ops);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    records.forEach(r -> rebuilder.add(r, "deltas.jsonl:" + r.seq()));
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem(
                "s",
                3L,
                Kind.CHECKSUM_MISMATCH,
                "sha256 of the rebuilt body is "
                    + Sha256.hex(wrong).substring(0, 16)
                    + "…, body_sha256 says "
                    + Sha256.hex(t.get(2)).substring(0, 16)
                    + "…",
                "deltas.jsonl:3"));
    assertThat(report.counts())
        .isEqualTo(new Counts(3, 2, 1, 0, 0, 0, 0, 0, t.get(0).length + t.get(1).length));
    assertThat(report.passed(true)).isFalse();
    assertThat(collector.bodies).containsOnlyKeys("s/1", "s/2");
  }

  @Test
  void shouldReportTheTurnsAfterAMismatchedBaseAsBrokenWithTheFirstFailure() {
    // Given: turn 2's body_len is wrong, 3 is based on 2
    List<byte[]> t = emojiTurns();
    List<DeltaRecord> records = chain("s", t);
    DeltaRecord second = records.get(1);
    records.set(
        1,
        Records.record(
            "s",
            2,
            "delta",
            null,
            null,
            1L,
            second.baseSha256(),
            second.ops(),
            second.bodyLen() + 1,
            second.bodySha256()));
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    records.forEach(r -> rebuilder.add(r, null));

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem(
                "s",
                2L,
                Kind.CHECKSUM_MISMATCH,
                "rebuilt " + t.get(1).length + " bytes, body_len says " + (t.get(1).length + 1),
                null),
            new Problem(
                "s",
                3L,
                Kind.BROKEN_CHAIN,
                "base turn 2 was not rebuilt (first failure: turn 2: rebuilt "
                    + t.get(1).length
                    + " bytes, body_len says "
                    + (t.get(1).length + 1)
                    + ")",
                null));
    assertThat(report.counts().checksumMismatches()).isEqualTo(1);
    assertThat(report.counts().brokenChains()).isEqualTo(1);
    assertThat(report.sessionsWithProblems()).isEqualTo(1);
  }

  @Test
  void shouldReportABrokenChainAndAGapWhenABaseIsDropped() {
    // Given: turn 2 never made it into the input
    List<byte[]> t = tauTurns().subList(0, 4);
    List<DeltaRecord> records = chain("s", t);
    records.remove(1);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    records.forEach(r -> rebuilder.add(r, "partition 0 offset " + r.seq()));

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem("s", 2L, Kind.GAP, "turn 2 is missing", null),
            new Problem(
                "s",
                3L,
                Kind.BROKEN_CHAIN,
                "base turn 2 is missing from the input",
                "partition 0 offset 3"),
            new Problem(
                "s",
                4L,
                Kind.BROKEN_CHAIN,
                "base turn 3 was not rebuilt (first failure: turn 3: base turn 2 is missing from the"
                    + " input)",
                "partition 0 offset 4"));
    assertThat(report.counts()).isEqualTo(new Counts(3, 1, 0, 2, 0, 0, 1, 0, t.get(0).length));
  }

  @Test
  void shouldReportAnErasedBaseAsABrokenChainButNotAsAGap() {
    // Given
    List<byte[]> t = tauTurns().subList(0, 3);
    List<DeltaRecord> records = chain("s", t);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    records.forEach(r -> rebuilder.add(r, null));
    rebuilder.addTopicRecord("s/2", null, "partition 1 offset 9");

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(new Problem("s", 3L, Kind.BROKEN_CHAIN, "base turn 2 was erased", null));
    assertThat(report.counts()).isEqualTo(new Counts(2, 1, 0, 1, 0, 1, 0, 0, t.get(0).length));
    assertThat(report.superseded()).isEqualTo(1);
  }

  @Test
  void shouldReportSeveralMissingTurnsAsOneGapWhichCanBeAllowed() {
    // Given: keyframes only, turns 3 and 4 absent
    List<byte[]> t = tauTurns().subList(0, 5);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    for (int seq : new int[] {1, 2, 5}) {
      rebuilder.add(keyframe("s", seq, t.get(seq - 1)), null);
    }

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem("s", 3L, Kind.GAP, "turns 3 to 4 are missing (2 turns)", null));
    assertThat(report.counts().missingTurns()).isEqualTo(2);
    assertThat(report.passed(false)).isFalse();
    assertThat(report.passed(true)).isTrue();
  }

  @Test
  void shouldRebuildANonUtf8KeyframeFromBase64() {
    // Given: bytes that are not UTF-8 (a stray 0xFF and a truncated sequence)
    byte[] body = {'{', '"', 'a', '"', ':', (byte) 0xFF, (byte) 0xC3, '}'};
    DeltaRecord record = keyframe("s", 1, body);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.add(record, null);
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(record.bodyEncoding()).isEqualTo("base64");
    assertThat(record.body()).isEqualTo("eyJhIjr/w30=");
    assertThat(report.problems()).isEmpty();
    assertThat(collector.bodies.get("s/1")).isEqualTo(body);
  }

  @Test
  void shouldReportABaseWhoseDigestIsNotTheOneTheDeltaWasEncodedAgainst() {
    // Given: turn 2 was encoded against other bytes than turn 1's
    List<byte[]> t = emojiTurns();
    byte[] otherBase =
        (new String(t.get(0), StandardCharsets.UTF_8) + "  ").getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.add(keyframe("s", 1, t.get(0)), null);
    rebuilder.add(delta("s", 2, 1, otherBase, t.get(1)), null);

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem(
                "s",
                2L,
                Kind.BROKEN_CHAIN,
                "base_sha256 "
                    + Sha256.hex(otherBase).substring(0, 16)
                    + "… is not the digest of base turn 1 as rebuilt ("
                    + Sha256.hex(t.get(0)).substring(0, 16)
                    + "…)",
                null));
  }

  @Test
  void shouldReportOpsOutOfRangeAsABrokenChain() {
    // Given: "héllo" has 5 code points
    byte[] base = "héllo".getBytes(StandardCharsets.UTF_8);
    byte[] body = "llo!".getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.add(keyframe("s", 1, base), null);
    rebuilder.add(
        Records.withOps("s", 2, 1, Sha256.hex(base), List.of(new DeltaOp.Copy(2, 4)), body), null);

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem(
                "s",
                2L,
                Kind.BROKEN_CHAIN,
                "ops do not fit base turn 1: copy of code points [2, 6) reaches past the end of the"
                    + " base (5 code points)",
                null));
  }

  @Test
  void shouldReportABaseSeqThatIsNotAnEarlierTurn() {
    // Given
    byte[] body = "abc".getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.add(keyframe("s", 1, body), null);
    rebuilder.add(
        Records.withOps("s", 2, 2, Sha256.hex(body), List.of(new DeltaOp.Copy(0, 3)), body), null);

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem("s", 2L, Kind.BROKEN_CHAIN, "base_seq 2 is not an earlier turn", null));
  }

  @Test
  void shouldReportUnreadableAndInvalidRecordsAsMalformed() {
    // Given
    byte[] good = "abc".getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.addTopicRecord("s/1", json(keyframe("s", 1, good)), "p0@1");
    rebuilder.addTopicRecord("s/2", "{\"seq\": tru".getBytes(StandardCharsets.UTF_8), "p0@2");
    rebuilder.addTopicRecord("s/3", json(keyframe("other", 3, good)), "p0@3");
    rebuilder.addTopicRecord(
        "s/4",
        json(Records.record("s", 4, "full", "abc", "rot13", null, null, null, 3, Sha256.hex(good))),
        "p0@4");
    rebuilder.addTopicRecord(
        "s/5",
        json(Records.record("s", 5, "patch", null, null, null, null, null, 3, Sha256.hex(good))),
        "p0@5");
    rebuilder.addTopicRecord(
        "s/6",
        json(
            Records.record(
                "s", 6, "full", "ab!c", "base64", null, null, null, 3, Sha256.hex(good))),
        "p0@6");
    rebuilder.addTopicRecord("no-seq", json(keyframe("s", 7, good)), "p0@7");
    rebuilder.addTopicRecord(null, null, "p0@8");

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems())
        .containsExactly(
            new Problem(
                null,
                null,
                Kind.MALFORMED,
                "record key is not session_key/chain/seq nor session_key/seq",
                "p0@7"),
            new Problem(
                null,
                null,
                Kind.MALFORMED,
                "tombstone without a key: the erased turn cannot be identified",
                "p0@8"),
            new Problem(
                "s",
                2L,
                Kind.MALFORMED,
                "cannot read the record: cannot read DeltaRecord: JsonParseException at line 1 column 9",
                "p0@2"),
            new Problem(
                "s",
                3L,
                Kind.MALFORMED,
                "the record says session_key other seq 3 but was filed under s/3",
                "p0@3"),
            new Problem(
                "s",
                4L,
                Kind.MALFORMED,
                "keyframe body_encoding is 'rot13', expected utf-8 or base64",
                "p0@4"),
            new Problem("s", 5L, Kind.MALFORMED, "kind is 'patch', expected full or delta", "p0@5"),
            new Problem("s", 6L, Kind.MALFORMED, "keyframe body is not valid base64", "p0@6"));
    assertThat(report.counts()).isEqualTo(new Counts(6, 1, 0, 0, 7, 0, 0, 0, 3));
  }

  @Test
  void shouldRebuildOneTurnLoadingOnlyTheChainItNeeds() {
    // Given: 1 keyframe; 2←1, 3←1, 4←3, 5←4, 6←5; turn 5 needs 4, 3 and 1 only
    List<byte[]> t = tauTurns().subList(0, 6);
    Map<Long, DeltaRecord> records = new LinkedHashMap<>();
    records.put(1L, keyframe("s", 1, t.get(0)));
    records.put(2L, delta("s", 2, 1, t.get(0), t.get(1)));
    records.put(3L, delta("s", 3, 1, t.get(0), t.get(2)));
    records.put(4L, delta("s", 4, 3, t.get(2), t.get(3)));
    records.put(5L, delta("s", 5, 4, t.get(3), t.get(4)));
    records.put(6L, delta("s", 6, 5, t.get(4), t.get(5)));
    List<Long> loaded = new ArrayList<>();
    Rebuilder rebuilder = new Rebuilder(RebuildScope.turn("s", 5));
    List<Boolean> kept = new ArrayList<>();
    records.forEach(
        (seq, r) ->
            kept.add(
                rebuilder.add(
                    new TurnKey("s", seq),
                    () -> {
                      loaded.add(seq);
                      return r;
                    },
                    null)));
    kept.add(rebuilder.add(keyframe("other", 1, t.get(0)), null));
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(kept).containsExactly(true, true, true, true, true, false, false);
    assertThat(loaded).containsExactly(5L, 4L, 3L, 1L);
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().turns()).isEqualTo(4);
    assertThat(collector.bodies).containsOnlyKeys("s/5");
    assertThat(collector.bodies.get("s/5")).isEqualTo(t.get(4));
  }

  @Test
  void shouldReportARequestedTurnThatIsErasedOrAbsent() {
    // Given
    byte[] body = "abc".getBytes(StandardCharsets.UTF_8);
    Rebuilder erased = new Rebuilder(RebuildScope.turn("s", 2));
    erased.add(keyframe("s", 1, body), null);
    erased.addTombstone(new TurnKey("s", 2), "p0@2");
    Rebuilder absent = new Rebuilder(RebuildScope.turn("s", 3));
    absent.add(keyframe("s", 1, body), null);
    Rebuilder noSession = new Rebuilder(RebuildScope.session("t"));
    noSession.add(keyframe("s", 1, body), null);

    // When
    RebuildReport erasedReport = erased.run(RebuildListener.NONE);
    RebuildReport absentReport = absent.run(RebuildListener.NONE);
    RebuildReport noSessionReport = noSession.run(RebuildListener.NONE);

    // Then
    assertThat(erasedReport.problems())
        .containsExactly(new Problem("s", 2L, Kind.NOT_FOUND, "turn 2 was erased", "p0@2"));
    assertThat(absentReport.problems())
        .containsExactly(new Problem("s", 3L, Kind.NOT_FOUND, "turn 3 is not in the input", null));
    assertThat(noSessionReport.problems())
        .containsExactly(
            new Problem("t", null, Kind.NOT_FOUND, "session t is not in the input", null));
    assertThat(noSessionReport.passed(true)).isFalse();
  }

  @Test
  void shouldKeepOnlyTheRequestedSession() {
    // Given
    byte[] body = "abc".getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.session("b"));

    // When
    boolean a = rebuilder.add(keyframe("a", 1, body), null);
    boolean b = rebuilder.add(keyframe("b", 1, body), null);
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(a).isFalse();
    assertThat(b).isTrue();
    assertThat(report.sessions()).isEqualTo(1);
    assertThat(report.counts().rebuiltOk()).isEqualTo(1);
  }

  @Test
  void shouldLetTheNewestRecordUnderAKeyWin() {
    // Given: a bad record, then the good one under the same key, then a tombstone and a re-add
    List<byte[]> t = emojiTurns();
    DeltaRecord good = keyframe("s", 1, t.get(0));
    DeltaRecord bad =
        Records.record("s", 1, "full", "x", "utf-8", null, null, null, 1, Sha256.hex(t.get(1)));
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.add(bad, null);
    rebuilder.add(good, null);
    rebuilder.addTopicRecord("s/2", null, null);
    rebuilder.add(delta("s", 2, 1, t.get(0), t.get(1)), null);

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().rebuiltOk()).isEqualTo(2);
    assertThat(report.superseded()).isEqualTo(2);
    assertThat(rebuilder.pendingTurns()).isEqualTo(2);
  }

  @Test
  void shouldLoadRecordsSessionBySessionOnlyWhenRun() {
    // Given
    byte[] body = "abc".getBytes(StandardCharsets.UTF_8);
    List<String> events = new ArrayList<>();
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    for (String session : List.of("b", "a")) {
      for (long seq = 1; seq <= 2; seq++) {
        DeltaRecord r = keyframe(session, seq, body);
        rebuilder.add(
            new TurnKey(session, seq),
            () -> {
              events.add("load " + r.sessionKey() + "/" + r.seq());
              return r;
            },
            null);
      }
    }
    List<String> before = List.copyOf(events);

    // When
    rebuilder.run(
        new RebuildListener() {
          @Override
          public void onSessionDone(SessionReport report) {
            events.add("done " + report.sessionKey());
          }
        });

    // Then
    assertThat(before).isEmpty();
    assertThat(events)
        .containsExactly("load a/1", "load a/2", "done a", "load b/1", "load b/2", "done b");
  }

  @Test
  void shouldRebuildWhatTheSessionTurnEncoderWrites() throws IOException {
    // Given: the stream app's encoder, with a keyframe every 4 turns and bases chosen by it
    List<byte[]> t = tauTurns();
    TurnEncoder encoder =
        new TurnEncoder(new EncoderSettings(3, 8L * 1024 * 1024, 4, 0.5, 0.1, 32));
    Map<Long, byte[]> stored = new HashMap<>();
    BaseBodies bases = stored::get;
    SessionState state = SessionState.newChain("0a1b2c3d");
    List<DeltaRecord> records = new ArrayList<>();
    for (byte[] body : t) {
      EncodedTurn turn = encoder.encode(state, body, true, bases, 0L);
      RawRequestEvent raw = raw("s", body);
      records.add(
          Json.mapper()
              .readValue(
                  Json.mapper().writeValueAsBytes(DeltaRecords.of(raw, turn)), DeltaRecord.class));
      if (turn.storeBody()) {
        stored.put(turn.seq(), body);
      }
      turn.evictedSeqs().forEach(stored::remove);
      state = turn.newState();
    }
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    records.forEach(r -> rebuilder.add(r, null));
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(records.stream().filter(DeltaRecord::isKeyframe).count()).isGreaterThan(1);
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().rebuiltOk()).isEqualTo(t.size());
    for (int i = 0; i < t.size(); i++) {
      assertThat(collector.bodies.get("s/0a1b2c3d/" + (i + 1))).isEqualTo(t.get(i));
    }
  }

  @Test
  void shouldRebuildTwoChainsOfOneSessionThatShareSeqsIndependently() {
    // Given: a session that lost its state and started over: both chains have turns 1 and 2
    byte[] a1 = "{\"old\":\"first turn of the first chain\"}".getBytes(StandardCharsets.UTF_8);
    byte[] a2 =
        "{\"old\":\"first turn of the first chain, and more\"}".getBytes(StandardCharsets.UTF_8);
    byte[] b1 = "{\"new\":\"first turn of the second chain\"}".getBytes(StandardCharsets.UTF_8);
    byte[] b2 =
        "{\"new\":\"first turn of the second chain, and more\"}".getBytes(StandardCharsets.UTF_8);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    List<DeltaRecord> records =
        List.of(
            Records.inChain(keyframe("s", 1, a1), "aaaaaaaa"),
            Records.inChain(delta("s", 2, 1, a1, a2), "aaaaaaaa"),
            Records.inChain(keyframe("s", 1, b1), "bbbbbbbb"),
            Records.inChain(delta("s", 2, 1, b1, b2), "bbbbbbbb"));
    for (DeltaRecord r : records) {
      rebuilder.addTopicRecord(r.key(), JsonSerde.of(DeltaRecord.class).toBytes(r), r.key());
    }
    Collector collector = new Collector();

    // When
    RebuildReport report = rebuilder.run(collector);

    // Then
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().rebuiltOk()).isEqualTo(4);
    assertThat(collector.bodies)
        .containsOnlyKeys("s/aaaaaaaa/1", "s/aaaaaaaa/2", "s/bbbbbbbb/1", "s/bbbbbbbb/2");
    assertThat(collector.bodies.get("s/bbbbbbbb/2")).isEqualTo(b2);
  }

  @Test
  void shouldReportAVersion3RecordFiledUnderAnotherChain() {
    // Given
    byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    DeltaRecord record = Records.inChain(keyframe("s", 1, body), "aaaaaaaa");
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.addTopicRecord(
        "s/bbbbbbbb/1", JsonSerde.of(DeltaRecord.class).toBytes(record), "p0@0");

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.counts().malformed()).isEqualTo(1);
    assertThat(report.problems().get(0).reason())
        .isEqualTo(
            "the record says session_key s chain aaaaaaaa seq 1 but was filed under s/bbbbbbbb/1");
  }

  @Test
  void shouldKeepOnlyTheFirstProblemsButCountThemAll() {
    // Given: five keyframes with a wrong digest each
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions(), 2);
    for (long seq = 1; seq <= 5; seq++) {
      rebuilder.add(
          Records.record("s", seq, "full", "a", "utf-8", null, null, null, 1, "00"), null);
    }

    // When
    RebuildReport report = rebuilder.run(RebuildListener.NONE);

    // Then
    assertThat(report.problemCount()).isEqualTo(5);
    assertThat(report.problems()).extracting(Problem::seq).containsExactly(1L, 2L);
    assertThat(report.counts().checksumMismatches()).isEqualTo(5);
  }

  @Test
  void shouldRunOnlyOnce() {
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    rebuilder.run(RebuildListener.NONE);
    assertThatThrownBy(() -> rebuilder.run(RebuildListener.NONE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a Rebuilder runs once");
  }

  private static RawRequestEvent raw(String session, byte[] body) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        1,
        "r",
        0L,
        session,
        "header:x-session-id",
        "127.0.0.1",
        "t",
        null,
        "POST",
        "/v1/chat/completions",
        "prefixlog-demo",
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  private static byte[] json(DeltaRecord record) {
    try {
      return Json.mapper().writeValueAsBytes(record);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static int indexOfInsert(List<DeltaOp> ops) {
    for (int i = 0; i < ops.size(); i++) {
      if (ops.get(i) instanceof DeltaOp.Insert) {
        return i;
      }
    }
    throw new AssertionError("no insert in " + ops);
  }

  private static byte[] rebuild(byte[] base, List<DeltaOp> ops) {
    try {
      return io.prefixlog.core.delta.DeltaDecoder.apply(base, ops);
    } catch (io.prefixlog.core.delta.DeltaException e) {
      throw new AssertionError(e);
    }
  }

  /** Records bodies and the order of events. */
  private static final class Collector implements RebuildListener {
    final Map<String, byte[]> bodies = new HashMap<>();
    final List<String> order = new ArrayList<>();

    @Override
    public void onVerifiedBody(String sessionKey, long seq, byte[] body) {
      bodies.put(sessionKey + "/" + seq, body.clone());
      order.add(sessionKey + "/" + seq);
    }

    @Override
    public void onSessionDone(SessionReport report) {
      order.add("done " + report.sessionKey());
    }
  }
}
