package io.prefixlog.streams.session;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The session-delta processor's two RocksDB stores. Their names are changelog topic names: renaming
 * one is a breaking change.
 *
 * <ul>
 *   <li>{@value #STATE}: session_key → the session's small state (seq counter, last activity, the
 *       fingerprints of its bases), rewritten on every request;
 *   <li>{@value #BASES}: {@code session_key/seq} → a stored base body, written once and deleted
 *       when evicted, so that a request writes one body to the changelog, not the whole set.
 * </ul>
 */
public final class SessionStores {
  public static final String STATE = "session-state";
  public static final String BASES = "session-bases";

  private SessionStores() {}

  /** Both stores, their changelogs sized for records of up to {@code maxRecordBytes}. */
  public static Set<StoreBuilder<?>> builders(long maxRecordBytes) {
    Map<String, String> changelog = Map.of("max.message.bytes", Long.toString(maxRecordBytes));
    StoreBuilder<KeyValueStore<String, byte[]>> state =
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(STATE), Serdes.String(), Serdes.ByteArray())
            .withLoggingEnabled(changelog);
    StoreBuilder<KeyValueStore<String, byte[]>> bases =
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(BASES), Serdes.String(), Serdes.ByteArray())
            .withLoggingEnabled(changelog);
    return Set.of(state, bases);
  }

  static String baseKey(String sessionKey, long seq) {
    return sessionKey + "/" + seq;
  }
}
