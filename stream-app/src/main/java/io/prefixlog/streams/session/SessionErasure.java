package io.prefixlog.streams.session;

import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Carries out session erase orders against the session stores: the state, the bases and the dedup
 * entries of the session go, the current chain's turns are tombstoned, and the bases' RocksDB range
 * is compacted so their bytes leave this instance's disk. What it removed comes back as an {@link
 * ErasureAck}; the caller forwards the tombstones and the acknowledgement.
 *
 * <p>Every key of a session starts with {@code session_key/} (bases, dedup entries) or is the
 * session key itself (state), and a session key never holds a {@code /}: a prefix scan finds
 * exactly the session's entries, the current chain's and any a crash or an old version left.
 *
 * <p>An order is bounded work in one transaction only up to a point: a chain can have any number of
 * turns, and each has a tombstone to write and, within the dedup window, a dedup entry to delete.
 * So {@link #start} does what is bounded at once (the state goes, so the session's next turn starts
 * a new chain; the bases, a session's few, go and are compacted) and returns an {@link ErasureJob};
 * {@link #step} then does at most a budget of turns and dedup entries at a time, one step per bulk
 * punctuation and commit, from the job's cursor, which the caller saves in the store with the step.
 * The acknowledgement comes when the job is done. Meanwhile the session goes on in its new chain: a
 * step deletes only the dedup entries of other chains than the session's current one, and {@link
 * SessionDeltaProcessor} ignores an entry of a chain being erased.
 *
 * <p>Chains older than the current one are not known here (their state went at the seq retention):
 * their delta and lookup keys are tombstoned by {@code prefixlog erase} from what the topics hold.
 */
final class SessionErasure {
  private static final StringSerializer KEYS = new StringSerializer();

  /** The highest code point: an upper bound for every key under a prefix, in UTF-8 byte order. */
  private static final String MAX_SUFFIX = new String(Character.toChars(Character.MAX_CODE_POINT));

  /** Where a step's tombstones go: the turn's delta, metadata and lookup keys. */
  interface Tombstones {
    void turn(String turnKey, long timestamp);
  }

  /**
   * How an order began.
   *
   * @param kept the acknowledgement of an order that keeps the session (its chain had a turn at or
   *     after {@code before}), or null
   * @param job the work of an order that erases, or null when kept
   * @param wasLive whether the session held bases before (for the live-session gauge)
   */
  record Start(ErasureAck kept, ErasureJob job, boolean wasLive) {}

  private final KeyValueStore<String, byte[]> states;
  private final KeyValueStore<String, byte[]> bases;
  private final WindowStore<String, byte[]> requestIds;

  SessionErasure(
      KeyValueStore<String, byte[]> states,
      KeyValueStore<String, byte[]> bases,
      WindowStore<String, byte[]> requestIds) {
    this.states = states;
    this.bases = bases;
    this.requestIds = requestIds;
  }

  /**
   * The bounded part of an order: the state and the bases go at once.
   *
   * @param state the session's stored state, or null
   */
  Start start(EraseRequest order, SessionState state, long timestamp) {
    String session = order.sessionKey();
    String chain = state == null || state.isLegacy() ? null : state.chain();
    if (state != null && order.before() != null && state.lastSeenMs() >= order.before()) {
      // The current chain has a turn at or after `before`: it stays, and so does its state.
      return new Start(kept(order, timestamp, chain), null, false);
    }
    long lastSeq = 0;
    if (state != null) {
      lastSeq = state.nextSeq() - 1;
      states.delete(session);
    }
    String prefix = session + "/";
    long basesRemoved = deleteBases(prefix);
    byte[] from = prefix.getBytes(StandardCharsets.UTF_8);
    byte[] to = (prefix + MAX_SUFFIX).getBytes(StandardCharsets.UTF_8);
    boolean compacted = basesRemoved > 0 && StoreCompaction.compact(bases, from, to);
    ErasureJob job =
        new ErasureJob(order, timestamp, chain, lastSeq, basesRemoved, compacted, state != null);
    return new Start(null, job, state != null && !state.bases().isEmpty());
  }

  /**
   * Does up to {@code budget} keys of the job: the turns it has not tombstoned yet, in seq order,
   * then the dedup entries of the session that are not of its current chain.
   *
   * @return the keys done (turns tombstoned and entries deleted)
   */
  int step(ErasureJob job, int budget, Tombstones out) {
    int done = 0;
    while (done < budget && job.nextSeq <= job.lastSeq) {
      out.turn(DeltaRecord.key(job.session, job.chain, job.nextSeq), job.orderTs);
      job.nextSeq++;
      done++;
    }
    if (done < budget && !job.requestIdsDone) {
      int deleted = deleteRequestIds(job.session, budget - done, job);
      job.requestIdsRemoved += deleted;
      done += deleted;
    }
    return done;
  }

  /** Records the job's progress, in the same transaction as the step's outputs. */
  void save(ErasureJob job) {
    bases.put(job.key(), job.encode());
  }

  void remove(ErasureJob job) {
    bases.delete(job.key());
  }

  /** The jobs of this task not done yet, as its stores hold them. */
  List<ErasureJob> pending() {
    List<ErasureJob> jobs = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> found = bases.prefixScan(ErasureJob.KEY_PREFIX, KEYS)) {
      while (found.hasNext()) {
        jobs.add(ErasureJob.decode(found.next().value));
      }
    }
    return jobs;
  }

  /** The chain of a dedup entry's turn key, or null for a turn key without one. */
  static String chainOf(String session, String turnKey) {
    String rest = turnKey.substring(session.length() + 1);
    int slash = rest.indexOf('/');
    return slash < 0 ? null : rest.substring(0, slash);
  }

  private long deleteBases(String prefix) {
    List<String> keys = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> found = bases.prefixScan(prefix, KEYS)) {
      while (found.hasNext()) {
        keys.add(found.next().key);
      }
    }
    keys.forEach(bases::delete);
    return keys.size();
  }

  /**
   * Deletes up to {@code max} dedup entries of the session that are not of its current chain (all
   * of them while it has no state). The scan starts at the session's first entry every time: what
   * it deleted is gone, and what it keeps is the new chain's, the turns since the order. Sets
   * {@link ErasureJob#requestIdsDone} when it reaches the end.
   *
   * @return the entries deleted
   */
  private int deleteRequestIds(String session, int max, ErasureJob job) {
    byte[] stored = states.get(session);
    SessionState state = stored == null ? null : SessionStateCodec.decode(stored);
    String current = state == null || state.isLegacy() ? null : state.chain();
    String prefix = session + "/";
    List<Windowed<String>> keys = new ArrayList<>();
    boolean end;
    try (KeyValueIterator<Windowed<String>, byte[]> found =
        requestIds.fetch(
            prefix, prefix + MAX_SUFFIX, Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE))) {
      while (keys.size() < max && found.hasNext()) {
        KeyValue<Windowed<String>, byte[]> entry = found.next();
        // A key range is compared as serialised bytes and may return neighbours: keep the prefix.
        if (!entry.key.key().startsWith(prefix)) {
          continue;
        }
        if (current == null || !current.equals(chainOfEntry(session, entry.value))) {
          keys.add(entry.key);
        }
      }
      end = !found.hasNext();
    }
    for (Windowed<String> key : keys) {
      requestIds.put(key.key(), null, key.window().start());
    }
    job.requestIdsDone = end;
    return keys.size();
  }

  /** The chain of an entry's turn, or null when it has none or cannot be read (it goes). */
  private static String chainOfEntry(String session, byte[] value) {
    try {
      return chainOf(session, SeenRequest.fromBytes(value, session).turnKey());
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      return null;
    }
  }

  private static ErasureAck kept(EraseRequest order, long timestamp, String chain) {
    return new ErasureAck(
        ErasureAck.SCHEMA_VERSION,
        order.eraseId(),
        timestamp,
        ErasureAck.SCOPE_SESSION,
        order.sessionKey(),
        null,
        ErasureAck.KEPT,
        chain,
        0L,
        0L,
        0L,
        null,
        null,
        false);
  }
}
