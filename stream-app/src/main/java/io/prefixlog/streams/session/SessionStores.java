package io.prefixlog.streams.session;

import io.prefixlog.streams.admin.TopicCompression;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The session-delta processor's RocksDB stores. Their names are changelog topic names: renaming one
 * is a breaking change.
 *
 * <ul>
 *   <li>{@value #STATE}: session_key → the session's small state (chain, seq counter, last
 *       activity, the fingerprints of its bases), rewritten on every request;
 *   <li>{@value #BASES}: {@code session_key/chain/seq} → one record of the session's {@link
 *       io.prefixlog.core.delta.BaseLog}: the ops that rebuild that turn's body from the record
 *       before it, or the whole body where the log starts again ({@link BaseStore}). Written once
 *       and deleted when no kept base needs it, so that a request writes about its delta to the
 *       changelog, not its body. (A state of format 2 or older has whole bodies here under its
 *       keys; they go at its next turn.)
 *   <li>{@value #REQUEST_IDS}: {@code session_key/<capture identity>} (the {@code capture_id}, or
 *       {@code request_id@ts} without one) → the body's SHA-256 and the turn it became, for the
 *       dedup window; while an earlier build may run, also {@code session_key/request_id}, the key
 *       it looks up. A window store because Kafka Streams then drops whole expired segments by
 *       stream time: no scan, no tombstone per id.
 *   <li>{@value #IDLE_INDEX}: {@code <due ms>/session_key}, the sessions in the order the eviction
 *       punctuator needs them ({@link IdleIndex}). Unlogged: rebuilt from the states when the task
 *       starts, so it costs no changelog bytes.
 * </ul>
 */
public final class SessionStores {
  public static final String STATE = "session-state";
  public static final String BASES = "session-bases";
  public static final String REQUEST_IDS = "session-request-ids";
  public static final String IDLE_INDEX = "session-idle-index";

  private SessionStores() {}

  /**
   * The stores, their changelogs sized for records of up to {@code maxRecordBytes}.
   *
   * @param dedupWindow how long a request id is remembered (stream time)
   * @param maxCompactionLag the changelogs' {@code max.compaction.lag.ms}: a deleted base (evicted
   *     or erased) leaves the broker's disk within about this long
   */
  public static Set<StoreBuilder<?>> builders(
      long maxRecordBytes, Duration dedupWindow, Duration maxCompactionLag) {
    // The broker stores the changelogs in zstd: the stream thread's producer writes lz4.
    Map<String, String> compressed = TopicCompression.zstd(TopicCompression.LIGHT_ZSTD_LEVEL);
    Map<String, String> changelog = new HashMap<>(compressed);
    changelog.put("max.message.bytes", Long.toString(maxRecordBytes));
    changelog.put("max.compaction.lag.ms", Long.toString(maxCompactionLag.toMillis()));
    StoreBuilder<KeyValueStore<String, byte[]>> state =
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(STATE), Serdes.String(), Serdes.ByteArray())
            .withLoggingEnabled(changelog);
    StoreBuilder<KeyValueStore<String, byte[]>> bases =
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(BASES), Serdes.String(), Serdes.ByteArray())
            .withLoggingEnabled(changelog);
    // Windows of 1 ms keyed by the record time of the first arrival: a lookup asks for any window
    // within the dedup window around the new arrival.
    StoreBuilder<WindowStore<String, byte[]>> requestIds =
        Stores.windowStoreBuilder(
                Stores.persistentWindowStore(REQUEST_IDS, dedupWindow, Duration.ofMillis(1), false),
                Serdes.String(),
                Serdes.ByteArray())
            .withLoggingEnabled(withCompactionLag(compressed, maxCompactionLag));
    StoreBuilder<KeyValueStore<String, byte[]>> idleIndex =
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(IDLE_INDEX), Serdes.String(), Serdes.ByteArray())
            .withLoggingDisabled();
    // A fixed order: Set.of iterates in an order salted per JVM, and the order the stores are added
    // in is the order topology.describe() lists them (the golden topology test saw both orders).
    return new LinkedHashSet<>(List.of(state, bases, requestIds, idleIndex));
  }

  private static Map<String, String> withCompactionLag(
      Map<String, String> settings, Duration maxCompactionLag) {
    Map<String, String> all = new HashMap<>(settings);
    all.put("max.compaction.lag.ms", Long.toString(maxCompactionLag.toMillis()));
    return all;
  }

  static String baseKey(String sessionKey, String chain, long seq) {
    return sessionKey + "/" + chain + "/" + seq;
  }

  /** Where version 1 states (no chain) kept their bases. */
  static String legacyBaseKey(String sessionKey, long seq) {
    return sessionKey + "/" + seq;
  }

  /** The dedup key of {@code id} (a capture identity or a request id) in its session. */
  static String requestIdKey(String sessionKey, String id) {
    return sessionKey + "/" + id;
  }
}
