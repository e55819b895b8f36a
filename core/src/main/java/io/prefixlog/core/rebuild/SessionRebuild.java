package io.prefixlog.core.rebuild;

import io.prefixlog.core.delta.DeltaDecoder;
import io.prefixlog.core.delta.DeltaException;
import io.prefixlog.core.rebuild.Problem.Kind;
import io.prefixlog.core.rebuild.Rebuilder.Entry;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Rebuilds the turns of one chain of a session in seq order. Loads the chain's records (all of
 * them, or the bases of one turn), counts how many later turns use each turn as a base, and keeps a
 * rebuilt body only while such a turn is still to come. Reports and the listener name the chain by
 * its chain key: {@code session_key/chain}, or the session key alone for version 2 records.
 */
final class SessionRebuild {
  private final String recordSessionKey;
  private final String chain;
  private final String sessionKey;
  private final NavigableMap<Long, Entry> entries;
  private final Long target;
  private final RebuildListener listener;
  private final RunningCounts tally = new RunningCounts(Integer.MAX_VALUE);
  private final NavigableMap<Long, Turn> turns = new TreeMap<>();
  private final Map<Long, Integer> pendingUses = new HashMap<>();
  private final Map<Long, byte[]> bodies = new HashMap<>();
  private final Map<Long, String> verifiedSha = new HashMap<>();

  /** For each turn that failed: the first failure of its chain, as "turn N: reason". */
  private final Map<Long, String> rootCause = new HashMap<>();

  SessionRebuild(
      String sessionKey,
      String chain,
      NavigableMap<Long, Entry> entries,
      Long target,
      RebuildListener listener) {
    this.recordSessionKey = sessionKey;
    this.chain = chain;
    this.sessionKey = TurnKey.chainKey(sessionKey, chain);
    this.entries = entries;
    this.target = target;
    this.listener = listener;
  }

  static SessionReport sessionNotFound(RebuildScope scope) {
    RunningCounts tally = new RunningCounts(1);
    tally.problem(
        new Problem(
            scope.sessionKey(),
            scope.seq(),
            Kind.NOT_FOUND,
            "session " + scope.sessionKey() + " is not in the input",
            null));
    return new SessionReport(scope.sessionKey(), tally.counts(), 1, tally.problems());
  }

  SessionReport run(int maxProblems) {
    if (target == null) {
      loadAll();
    } else {
      loadChain();
    }
    for (Turn turn : turns.values()) {
      long pending = turn.seq;
      if (turn.record != null && !turn.record.isKeyframe()) {
        long base = turn.record.baseSeq();
        if (base < pending) {
          pendingUses.merge(base, 1, Integer::sum);
        }
      }
    }
    Map.Entry<Long, Turn> next;
    while ((next = turns.pollFirstEntry()) != null) {
      rebuild(next.getValue());
    }
    List<Problem> problems = new ArrayList<>(tally.problems());
    problems.sort(
        Comparator.comparing(Problem::seq, Comparator.nullsFirst(Comparator.naturalOrder())));
    return new SessionReport(
        recordSessionKey,
        chain,
        tally.counts(),
        tally.problemCount(),
        problems.subList(0, Math.min(problems.size(), maxProblems)));
  }

  private void loadAll() {
    long expected = 1;
    for (Map.Entry<Long, Entry> e : entries.entrySet()) {
      long seq = e.getKey();
      if (seq > expected) {
        reportGap(expected, seq - 1);
      }
      expected = seq + 1;
      if (e.getValue().isTombstone()) {
        tally.erased++;
      } else {
        turns.put(seq, load(seq, e.getValue()));
      }
    }
  }

  private void loadChain() {
    long seq = target;
    Entry entry = entries.get(seq);
    if (entry == null || entry.isTombstone()) {
      String reason =
          entry == null ? "turn " + seq + " is not in the input" : "turn " + seq + " was erased";
      tally.problem(
          new Problem(
              sessionKey, seq, Kind.NOT_FOUND, reason, entry == null ? null : entry.location()));
      return;
    }
    while (true) {
      Turn turn = load(seq, entry);
      turns.put(seq, turn);
      if (turn.record == null || turn.record.isKeyframe()) {
        return;
      }
      long base = turn.record.baseSeq();
      Entry baseEntry = base < seq ? entries.get(base) : null;
      if (baseEntry == null || baseEntry.isTombstone()) {
        return; // reported as a broken chain when the turn is rebuilt
      }
      seq = base;
      entry = baseEntry;
    }
  }

  private void reportGap(long first, long last) {
    long missing = last - first + 1;
    String reason =
        missing == 1
            ? "turn " + first + " is missing"
            : "turns " + first + " to " + last + " are missing (" + missing + " turns)";
    tally.gap(new Problem(sessionKey, first, Kind.GAP, reason, null), missing);
  }

  /** Reads and validates one record; a record that cannot be used carries the reason instead. */
  private Turn load(long seq, Entry entry) {
    DeltaRecord record;
    try {
      record = entry.source().load();
    } catch (IOException | RuntimeException e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return Turn.unusable(seq, entry.location(), "cannot read the record: " + message);
    }
    Optional<String> invalid = validate(seq, record);
    return invalid.isPresent()
        ? Turn.unusable(seq, entry.location(), invalid.get())
        : new Turn(seq, entry.location(), record, null);
  }

  private Optional<String> validate(long seq, DeltaRecord r) {
    if (r == null) {
      return Optional.of("the record is JSON null");
    }
    String recordChain = r.chain() == null ? "" : r.chain();
    if (!recordSessionKey.equals(r.sessionKey())
        || !chain.equals(recordChain)
        || r.seq() == null
        || r.seq() != seq) {
      return Optional.of(
          "the record says session_key "
              + r.sessionKey()
              + (recordChain.isEmpty() ? "" : " chain " + recordChain)
              + " seq "
              + r.seq()
              + " but was filed under "
              + DeltaRecord.key(recordSessionKey, chain, seq));
    }
    Integer version = r.schemaVersion();
    if (version == null
        || (version != DeltaRecord.SCHEMA_VERSION && version != DeltaRecord.SCHEMA_VERSION_V2)) {
      return Optional.of(
          "schema_version is "
              + version
              + ", expected "
              + DeltaRecord.SCHEMA_VERSION
              + " or "
              + DeltaRecord.SCHEMA_VERSION_V2);
    }
    if (version == DeltaRecord.SCHEMA_VERSION && recordChain.isEmpty()) {
      return Optional.of("schema_version 3 record without chain");
    }
    if (version == DeltaRecord.SCHEMA_VERSION_V2 && !recordChain.isEmpty()) {
      return Optional.of("schema_version 2 record with a chain");
    }
    if (r.bodyLen() == null || r.bodyLen() < 0) {
      return Optional.of("body_len is missing or negative");
    }
    if (r.bodySha256() == null) {
      return Optional.of("body_sha256 is missing");
    }
    if (DeltaRecord.KIND_FULL.equals(r.kind())) {
      if (r.body() == null) {
        return Optional.of("keyframe without body");
      }
      if (BodyEncoding.fromWireName(r.bodyEncoding()).isEmpty()) {
        return Optional.of(
            "keyframe body_encoding is " + quote(r.bodyEncoding()) + ", expected utf-8 or base64");
      }
      return Optional.empty();
    }
    if (DeltaRecord.KIND_DELTA.equals(r.kind())) {
      if (r.baseSeq() == null) {
        return Optional.of("delta without base_seq");
      }
      if (r.baseSha256() == null) {
        return Optional.of("delta without base_sha256");
      }
      if (r.ops() == null) {
        return Optional.of("delta without ops");
      }
      return Optional.empty();
    }
    return Optional.of("kind is " + quote(r.kind()) + ", expected full or delta");
  }

  private void rebuild(Turn turn) {
    tally.turns++;
    if (turn.record == null) {
      fail(turn, Kind.MALFORMED, turn.unusable, null);
      return;
    }
    DeltaRecord record = turn.record;
    byte[] body;
    if (record.isKeyframe()) {
      BodyEncoding encoding = BodyEncoding.fromWireName(record.bodyEncoding()).orElseThrow();
      try {
        body = encoding.decode(record.body());
      } catch (IllegalArgumentException e) {
        fail(turn, Kind.MALFORMED, "keyframe body is not valid " + encoding.wireName(), null);
        return;
      }
    } else {
      body = applyDelta(turn);
      long base = record.baseSeq();
      if (pendingUses.containsKey(base) && pendingUses.merge(base, -1, Integer::sum) == 0) {
        pendingUses.remove(base);
        bodies.remove(base);
      }
      if (body == null) {
        return;
      }
    }
    check(turn, body);
  }

  /** The rebuilt bytes of a delta, or null after reporting why it cannot be rebuilt. */
  private byte[] applyDelta(Turn turn) {
    DeltaRecord record = turn.record;
    long base = record.baseSeq();
    if (base >= turn.seq) {
      fail(turn, Kind.BROKEN_CHAIN, "base_seq " + base + " is not an earlier turn", null);
      return null;
    }
    String baseSha = verifiedSha.get(base);
    if (baseSha == null) {
      String cause = rootCause.get(base);
      Entry entry = entries.get(base);
      String reason;
      if (cause != null) {
        reason = "base turn " + base + " was not rebuilt";
      } else if (entry == null) {
        reason = "base turn " + base + " is missing from the input";
      } else if (entry.isTombstone()) {
        reason = "base turn " + base + " was erased";
      } else {
        reason = "base turn " + base + " was not rebuilt";
      }
      fail(turn, Kind.BROKEN_CHAIN, reason, cause);
      return null;
    }
    if (!baseSha.equalsIgnoreCase(record.baseSha256())) {
      fail(
          turn,
          Kind.BROKEN_CHAIN,
          "base_sha256 "
              + abbreviate(record.baseSha256())
              + " is not the digest of base turn "
              + base
              + " as rebuilt ("
              + abbreviate(baseSha)
              + ")",
          null);
      return null;
    }
    try {
      return DeltaDecoder.apply(
          bodies.get(base), record.ops(), record.bodyLen() == null ? -1 : record.bodyLen());
    } catch (DeltaException e) {
      fail(
          turn,
          Kind.BROKEN_CHAIN,
          "ops do not fit base turn " + base + ": " + e.getMessage(),
          null);
      return null;
    }
  }

  private void check(Turn turn, byte[] body) {
    DeltaRecord record = turn.record;
    if (body.length != record.bodyLen()) {
      fail(
          turn,
          Kind.CHECKSUM_MISMATCH,
          "rebuilt " + body.length + " bytes, body_len says " + record.bodyLen(),
          null);
      return;
    }
    String sha = Sha256.hex(body);
    if (!sha.equalsIgnoreCase(record.bodySha256())) {
      fail(
          turn,
          Kind.CHECKSUM_MISMATCH,
          "sha256 of the rebuilt body is "
              + abbreviate(sha)
              + ", body_sha256 says "
              + abbreviate(record.bodySha256()),
          null);
      return;
    }
    tally.rebuiltOk++;
    tally.bytesRebuilt += body.length;
    verifiedSha.put(turn.seq, sha);
    if (pendingUses.containsKey(turn.seq)) {
      bodies.put(turn.seq, body);
    }
    if (target == null || target == turn.seq) {
      listener.onVerifiedBody(sessionKey, turn.seq, body);
      listener.onVerifiedTurn(sessionKey, turn.seq, record, body);
    }
    listener.onTurnChecked(sessionKey, turn.seq, true);
  }

  /**
   * Reports a turn that did not check out.
   *
   * @param inheritedCause the root cause when the turn failed because its base did, else null
   */
  private void fail(Turn turn, Kind kind, String reason, String inheritedCause) {
    String fullReason =
        inheritedCause == null ? reason : reason + " (first failure: " + inheritedCause + ")";
    tally.problem(new Problem(sessionKey, turn.seq, kind, fullReason, turn.location));
    rootCause.put(
        turn.seq, inheritedCause != null ? inheritedCause : "turn " + turn.seq + ": " + reason);
    listener.onTurnChecked(sessionKey, turn.seq, false);
  }

  private static String abbreviate(String hex) {
    return hex == null ? "null" : hex.length() > 16 ? hex.substring(0, 16) + "…" : hex;
  }

  private static String quote(String value) {
    if (value == null) {
      return "missing";
    }
    String shown = value.length() > 24 ? value.substring(0, 24) + "…" : value;
    return "'" + shown + "'";
  }

  /** A loaded turn: the validated record, or why it cannot be used. */
  private static final class Turn {
    final long seq;
    final String location;
    final DeltaRecord record;
    final String unusable;

    Turn(long seq, String location, DeltaRecord record, String unusable) {
      this.seq = seq;
      this.location = location;
      this.record = record;
      this.unusable = unusable;
    }

    static Turn unusable(long seq, String location, String reason) {
      return new Turn(seq, location, null, reason);
    }
  }
}
