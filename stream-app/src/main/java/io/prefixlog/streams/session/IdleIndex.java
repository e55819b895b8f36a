package io.prefixlog.streams.session;

import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The sessions of one task ordered by when they next need the eviction punctuator: a session with
 * bases at its last activity + TTL (its bases go), a dormant one at its last activity + seq
 * retention (its state goes). The punctuator reads this index from its oldest entry and stops at
 * the first one not yet due, so it costs time in proportion to the sessions that expire, not to all
 * the sessions of the task (it used to decode every state of {@value SessionStores#STATE} every
 * minute).
 *
 * <p>Kept in the unlogged store {@value SessionStores#IDLE_INDEX} (keys {@code <due ms, 19
 * digits>/<session_key>}, empty values: RocksDB orders them by due time and holds them off the
 * heap). It is derived data: {@link #rebuild} makes it again from the session states whenever the
 * task starts (after a restore, a failover or a standby promotion alike), so it needs no changelog
 * and adds no bytes to the broker.
 */
final class IdleIndex {
  private static final byte[] EMPTY = new byte[0];

  /** A due entry: the index key to delete and the session it names. */
  record Due(String key, long dueMs, String session) {}

  private final KeyValueStore<String, byte[]> index;
  private final long ttlMs;
  private final long retentionMs;

  IdleIndex(KeyValueStore<String, byte[]> index, long ttlMs, long retentionMs) {
    this.index = index;
    this.ttlMs = ttlMs;
    this.retentionMs = retentionMs;
  }

  /**
   * When {@code state} next needs the punctuator: after its TTL with bases, its retention without.
   */
  long dueMs(SessionState state) {
    long wait = state.bases().isEmpty() ? retentionMs : ttlMs;
    long last = Math.max(0, state.lastSeenMs());
    return last > Long.MAX_VALUE - wait ? Long.MAX_VALUE : last + wait;
  }

  /**
   * Records that {@code session}'s stored state went from {@code before} to {@code after}; either
   * may be null (no state).
   */
  void moved(String session, SessionState before, SessionState after) {
    String from = before == null ? null : key(dueMs(before), session);
    String to = after == null ? null : key(dueMs(after), session);
    if (from != null && !from.equals(to)) {
      index.delete(from);
    }
    if (to != null && !to.equals(from)) {
      index.put(to, EMPTY);
    }
  }

  /**
   * The entries due before {@code streamTime} (a session idle for longer than its threshold, as the
   * punctuator always decided it), oldest first; reads no entry beyond the first one not due.
   */
  List<Due> dueBefore(long streamTime) {
    List<Due> due = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> entries = index.all()) {
      while (entries.hasNext()) {
        String key = entries.next().key;
        long dueMs = Long.parseLong(key.substring(0, 19));
        if (dueMs >= streamTime) {
          break;
        }
        due.add(new Due(key, dueMs, key.substring(20)));
      }
    }
    return due;
  }

  /** Drops an entry that names no state any more (its session was erased meanwhile). */
  void drop(Due entry) {
    index.delete(entry.key());
  }

  /**
   * Makes the index again from {@code states}: what a restored, migrated or promoted task has in
   * its session states is the truth, whatever this unlogged store held before.
   *
   * @return the live sessions among them (those with bases)
   */
  int rebuild(KeyValueStore<String, byte[]> states) {
    List<String> stale = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> entries = index.all()) {
      entries.forEachRemaining(entry -> stale.add(entry.key));
    }
    stale.forEach(index::delete);
    int live = 0;
    try (KeyValueIterator<String, byte[]> all = states.all()) {
      while (all.hasNext()) {
        KeyValue<String, byte[]> entry = all.next();
        SessionState state = SessionStateCodec.decode(entry.value);
        index.put(key(dueMs(state), entry.key), EMPTY);
        live += state.bases().isEmpty() ? 0 : 1;
      }
    }
    return live;
  }

  /**
   * 19 digits hold every non-negative long, so the keys sort as their times do. Padded by hand:
   * this runs twice per record, and {@code String.format} parses its pattern every time.
   */
  static String key(long dueMs, String session) {
    String digits = Long.toString(dueMs);
    return "0".repeat(19 - digits.length()) + digits + "/" + session;
  }
}
