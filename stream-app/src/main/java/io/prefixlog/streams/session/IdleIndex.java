package io.prefixlog.streams.session;

import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
 * heap). It is derived data, made again from the session states whenever the task starts (after a
 * restore, a failover or a standby promotion alike), so it needs no changelog and adds no bytes to
 * the broker.
 *
 * <p>That indexing is done in steps ({@link #indexStep}, a bounded number of states each, one per
 * bulk punctuation), in key order, so that a task over a million sessions starts at once instead of
 * decoding every state inside its initialisation. Until a session is indexed it is not evicted;
 * {@link #indexed} tells the processor which sessions the live count already holds. Nothing the
 * store held before is deleted first (that alone would touch every entry): an entry that no longer
 * matches its session's state is dropped when it comes due, as the punctuator always did for an
 * erased session.
 */
final class IdleIndex {
  private static final byte[] EMPTY = new byte[0];

  /** A due entry: the index key to delete and the session it names. */
  record Due(String key, long dueMs, String session) {}

  /**
   * A step of indexing.
   *
   * @param indexed the states indexed
   * @param live those with bases
   * @param done whether every state is indexed now
   */
  record Step(int indexed, int live, boolean done) {}

  private final KeyValueStore<String, byte[]> index;
  private final long ttlMs;
  private final long retentionMs;
  private boolean indexing;

  /** The last state key indexed (UTF-8, the stores' order), or null before the first. */
  private byte[] indexedThrough;

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
   * Starts indexing the task's states again: what a restored, migrated or promoted task has in its
   * session states is the truth, whatever this unlogged store held before.
   */
  void startIndexing() {
    indexing = true;
    indexedThrough = null;
  }

  boolean indexing() {
    return indexing;
  }

  /** Whether {@code session} has been indexed since the task started (its state, if it has one). */
  boolean indexed(String session) {
    return !indexing
        || indexedThrough != null
            && Arrays.compareUnsigned(session.getBytes(StandardCharsets.UTF_8), indexedThrough)
                <= 0;
  }

  /** Indexes up to {@code max} states after the last one indexed, in key order. */
  Step indexStep(KeyValueStore<String, byte[]> states, int max) {
    if (!indexing) {
      return new Step(0, 0, true);
    }
    String from =
        indexedThrough == null ? null : new String(indexedThrough, StandardCharsets.UTF_8);
    int indexed = 0;
    int live = 0;
    String last = from;
    boolean done;
    try (KeyValueIterator<String, byte[]> all =
        from == null ? states.all() : states.range(from, null)) {
      while (indexed < max && all.hasNext()) {
        KeyValue<String, byte[]> entry = all.next();
        if (entry.key.equals(from)) {
          continue; // indexed by the step before
        }
        SessionState state = SessionStateCodec.decode(entry.value);
        index.put(key(dueMs(state), entry.key), EMPTY);
        live += state.bases().isEmpty() ? 0 : 1;
        indexed++;
        last = entry.key;
      }
      done = !all.hasNext();
    }
    if (last != null) {
      indexedThrough = last.getBytes(StandardCharsets.UTF_8);
    }
    if (done) {
      indexing = false;
      indexedThrough = null;
    }
    return new Step(indexed, live, done);
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
