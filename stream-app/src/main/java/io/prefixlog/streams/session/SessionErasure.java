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
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Carries out one session erase order against the session stores: the current chain's tombstone
 * keys, the bases, the state and the dedup entries of the session go, and the bases' RocksDB range
 * is compacted so their bytes leave this instance's disk. What it removed comes back as an {@link
 * ErasureAck}; the caller forwards the tombstones and the acknowledgement in the same transaction.
 *
 * <p>Every key of a session starts with {@code session_key/} (bases, dedup entries) or is the
 * session key itself (state), and a session key never holds a {@code /}: a prefix scan finds
 * exactly the session's entries, the current chain's and any a crash or an old version left.
 *
 * <p>Chains older than the current one are not known here (their state went at the seq retention):
 * their delta and lookup keys are tombstoned by {@code prefixlog erase} from what the topics hold.
 */
final class SessionErasure {
  private static final StringSerializer KEYS = new StringSerializer();

  /** The highest code point: an upper bound for every key under a prefix, in UTF-8 byte order. */
  private static final String MAX_SUFFIX = new String(Character.toChars(Character.MAX_CODE_POINT));

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
   * What an order did.
   *
   * @param tombstoneKeys delta and lookup keys of the current chain to tombstone, in seq order
   * @param wasLive whether the session held bases before (for the live-session gauge)
   */
  record Result(ErasureAck ack, List<String> tombstoneKeys, boolean wasLive) {}

  Result erase(EraseRequest order, long timestamp) {
    String session = order.sessionKey();
    byte[] stored = states.get(session);
    SessionState state = stored == null ? null : SessionStateCodec.decode(stored);
    String chain = state == null || state.isLegacy() ? null : state.chain();
    if (state != null && order.before() != null && state.lastSeenMs() >= order.before()) {
      // The current chain has a turn at or after `before`: it stays, and so does its state.
      return new Result(
          ack(order, timestamp, ErasureAck.KEPT, chain, 0, 0, 0, false), List.of(), false);
    }
    List<String> tombstones = new ArrayList<>();
    if (state != null) {
      for (long seq = 1; seq < state.nextSeq(); seq++) {
        tombstones.add(DeltaRecord.key(session, chain, seq));
      }
      states.delete(session);
    }
    String prefix = session + "/";
    long basesRemoved = deleteBases(prefix);
    long idsRemoved = deleteRequestIds(prefix);
    byte[] from = prefix.getBytes(StandardCharsets.UTF_8);
    byte[] to = (prefix + MAX_SUFFIX).getBytes(StandardCharsets.UTF_8);
    boolean compacted = basesRemoved > 0 && StoreCompaction.compact(bases, from, to);
    boolean found = state != null || basesRemoved > 0 || idsRemoved > 0;
    String outcome = found ? ErasureAck.ERASED : ErasureAck.ABSENT;
    ErasureAck ack =
        ack(
            order,
            timestamp,
            outcome,
            chain,
            tombstones.size(),
            basesRemoved,
            idsRemoved,
            compacted);
    boolean wasLive = state != null && !state.bases().isEmpty();
    return new Result(ack, List.copyOf(tombstones), wasLive);
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

  private long deleteRequestIds(String prefix) {
    List<Windowed<String>> keys = new ArrayList<>();
    try (KeyValueIterator<Windowed<String>, byte[]> found =
        requestIds.fetch(
            prefix, prefix + MAX_SUFFIX, Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE))) {
      while (found.hasNext()) {
        Windowed<String> key = found.next().key;
        // A key range is compared as serialised bytes and may return neighbours: keep the prefix.
        if (key.key().startsWith(prefix)) {
          keys.add(key);
        }
      }
    }
    for (Windowed<String> key : keys) {
      requestIds.put(key.key(), null, key.window().start());
    }
    return keys.size();
  }

  private static ErasureAck ack(
      EraseRequest order,
      long timestamp,
      String outcome,
      String chain,
      long tombstoned,
      long basesRemoved,
      long idsRemoved,
      boolean compacted) {
    return new ErasureAck(
        ErasureAck.SCHEMA_VERSION,
        order.eraseId(),
        timestamp,
        ErasureAck.SCOPE_SESSION,
        order.sessionKey(),
        null,
        outcome,
        chain,
        tombstoned,
        basesRemoved,
        idsRemoved,
        null,
        null,
        compacted);
  }
}
