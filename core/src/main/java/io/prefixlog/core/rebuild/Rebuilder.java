package io.prefixlog.core.rebuild;

import io.prefixlog.schemas.delta.DeltaRecord;
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Rebuilds request bodies from delta records and checks every one (docs/design.md#records):
 * rebuilding turn n is rebuilding its base, applying the ops and checking {@code body_sha256}.
 *
 * <p>Records and tombstones are {@linkplain #add(TurnKey, RecordSource, String) added} in any
 * order; the newest addition under a key wins, as compaction keeps it. {@link #run} then rebuilds
 * chain by chain ({@code session_key/chain}, or the session alone for version 2 records) in key
 * order, each in seq order. A delta's base may be any earlier turn of its chain. Every rebuilt body
 * is checked against {@code body_len} and {@code body_sha256}, and every delta's {@code
 * base_sha256} against its base as rebuilt; whatever does not check out is reported with its
 * session, seq and reason, never skipped.
 *
 * <p>Memory: until {@link #run}, only the added {@link RecordSource}s (records as bytes, or where
 * to read them); during it, one session's parsed records plus those of its rebuilt bodies that a
 * later turn still uses as a base. A session's records and bodies are dropped when it is done.
 *
 * <p>Not thread-safe; one instance per rebuild.
 */
public final class Rebuilder {
  /** Problems kept in the reports by default; the counts are always exact. */
  public static final int DEFAULT_MAX_PROBLEMS = 1000;

  private final RebuildScope scope;
  private final int maxProblems;

  /** Chain key ({@link TurnKey#chainKey()}) → the chain's turns. */
  private final NavigableMap<String, Chain> chains = new TreeMap<>();

  private final Set<String> sessionKeys = new HashSet<>();
  private final RunningCounts inputTally;
  private long superseded;
  private long pendingTurns;
  private boolean ran;

  public Rebuilder(RebuildScope scope) {
    this(scope, DEFAULT_MAX_PROBLEMS);
  }

  /**
   * @param scope which turns to rebuild; records outside it are not kept
   * @param maxProblems how many problems the reports keep (counts stay exact)
   */
  public Rebuilder(RebuildScope scope, int maxProblems) {
    this.scope = Objects.requireNonNull(scope, "scope");
    if (maxProblems < 0) {
      throw new IllegalArgumentException("maxProblems must be >= 0, got " + maxProblems);
    }
    this.maxProblems = maxProblems;
    this.inputTally = new RunningCounts(maxProblems);
  }

  public RebuildScope scope() {
    return scope;
  }

  /**
   * Adds the record of a turn.
   *
   * @param location where it was read, for problem reports (may be null)
   * @return false when the turn is outside the scope and was not kept
   */
  public boolean add(TurnKey key, RecordSource source, String location) {
    Objects.requireNonNull(source, "source");
    return put(key, new Entry(source, location));
  }

  /**
   * Adds a tombstone: the turn was erased.
   *
   * @return false when the turn is outside the scope and was not kept
   */
  public boolean addTombstone(TurnKey key, String location) {
    return put(key, new Entry(null, location));
  }

  /**
   * Adds a record under its own {@code session_key}, {@code chain} and {@code seq}; a record
   * without them is reported as malformed.
   *
   * @return false when the record was not kept (outside the scope, or malformed)
   */
  public boolean add(DeltaRecord record, String location) {
    Objects.requireNonNull(record, "record");
    if (record.sessionKey() == null
        || record.sessionKey().isEmpty()
        || record.seq() == null
        || record.seq() < 1) {
      addUnreadable(location, "record has no session_key and seq >= 1 to file it under");
      return false;
    }
    TurnKey key;
    try {
      key =
          new TurnKey(
              record.sessionKey(), record.chain() == null ? "" : record.chain(), record.seq());
    } catch (IllegalArgumentException e) {
      addUnreadable(location, "record cannot be filed: " + e.getMessage());
      return false;
    }
    return add(key, RecordSource.of(record), location);
  }

  /**
   * Adds a record of the delta topic as a consumer sees it: key {@code session_key/chain/seq} (or
   * version 2's {@code session_key/seq}), value the record's JSON (parsed when its session is
   * rebuilt) or null for a tombstone. A record without a key is filed under its value's {@code
   * session_key} and {@code seq}; anything else that cannot be filed is reported as malformed.
   *
   * @return false when the record was not kept (outside the scope, or malformed)
   */
  public boolean addTopicRecord(String key, byte[] value, String location) {
    Optional<TurnKey> turn = TurnKey.parse(key);
    if (turn.isPresent()) {
      return value == null
          ? addTombstone(turn.get(), location)
          : add(turn.get(), RecordSource.json(value), location);
    }
    if (key != null) {
      addUnreadable(location, "record key is not session_key/chain/seq nor session_key/seq");
      return false;
    }
    if (value == null) {
      addUnreadable(location, "tombstone without a key: the erased turn cannot be identified");
      return false;
    }
    DeltaRecord record;
    try {
      record = RecordSource.json(value).load();
    } catch (IOException e) {
      addUnreadable(location, e.getMessage());
      return false;
    }
    if (record == null) {
      addUnreadable(location, "record is JSON null");
      return false;
    }
    return add(record, location);
  }

  /**
   * Reports input that could not be attributed to any turn (an unreadable line of a dump, a record
   * with a bad key). It counts as malformed.
   */
  public void addUnreadable(String location, String reason) {
    inputTally.problem(new Problem(null, null, Problem.Kind.MALFORMED, reason, location));
  }

  /** Records added and kept so far (tombstones and superseded records not included). */
  public long pendingTurns() {
    return pendingTurns;
  }

  /**
   * Rebuilds and checks every session in scope, in session key order, and returns what was found.
   * Can be called once.
   */
  public RebuildReport run(RebuildListener listener) {
    Objects.requireNonNull(listener, "listener");
    if (ran) {
      throw new IllegalStateException("a Rebuilder runs once");
    }
    ran = true;
    RunningCounts total = new RunningCounts(maxProblems);
    long sessionCount = 0;
    long sessionsWithProblems = 0;
    long inputProblems = inputTally.problemCount();
    if (inputProblems > 0) {
      total.add(new SessionReport("", inputTally.counts(), inputProblems, inputTally.problems()));
    }
    if (scope.sessionKey() != null && !sessionKeys.contains(scope.sessionKey())) {
      SessionReport missing = SessionRebuild.sessionNotFound(scope);
      listener.onSessionDone(missing);
      total.add(missing);
      sessionCount++;
      sessionsWithProblems++;
    }
    Map.Entry<String, Chain> next;
    while ((next = chains.pollFirstEntry()) != null) {
      Chain chain = next.getValue();
      SessionReport report =
          new SessionRebuild(chain.sessionKey, chain.chain, chain.turns, scope.seq(), listener)
              .run(maxProblems);
      listener.onSessionDone(report);
      total.add(report);
      sessionCount++;
      if (report.problemCount() > 0) {
        sessionsWithProblems++;
      }
    }
    return new RebuildReport(
        sessionCount,
        sessionsWithProblems,
        total.counts(),
        superseded,
        total.problemCount(),
        total.problems());
  }

  private boolean put(TurnKey key, Entry entry) {
    Objects.requireNonNull(key, "key");
    if (ran) {
      throw new IllegalStateException("records cannot be added after run()");
    }
    if (!scope.mayNeed(key)) {
      return false;
    }
    sessionKeys.add(key.sessionKey());
    Entry previous =
        chains
            .computeIfAbsent(key.chainKey(), k -> new Chain(key.sessionKey(), key.chain()))
            .turns
            .put(key.seq(), entry);
    if (previous != null) {
      superseded++;
      if (!previous.isTombstone()) {
        pendingTurns--;
      }
    }
    if (!entry.isTombstone()) {
      pendingTurns++;
    }
    return true;
  }

  /** The turns of one chain, by seq. */
  private static final class Chain {
    final String sessionKey;
    final String chain;
    final NavigableMap<Long, Entry> turns = new TreeMap<>();

    Chain(String sessionKey, String chain) {
      this.sessionKey = sessionKey;
      this.chain = chain;
    }
  }

  /** One input under a turn key: a record to load, or a tombstone (null source). */
  record Entry(RecordSource source, String location) {
    boolean isTombstone() {
      return source == null;
    }
  }
}
