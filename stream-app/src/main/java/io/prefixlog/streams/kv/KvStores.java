package io.prefixlog.streams.kv;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The store the kv-index processors keep: persistent, string keys, byte values, logged to a
 * changelog with the given settings. Stated once so that the block index and the source statistics
 * stay alike in what a restore and an erasure rely on.
 */
final class KvStores {
  private KvStores() {}

  /** The store {@code name}, as the one store a processor supplier declares. */
  static Set<StoreBuilder<?>> logged(String name, Map<String, String> changelog) {
    return Set.of(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(name), Serdes.String(), Serdes.ByteArray())
            .withLoggingEnabled(changelog));
  }
}
