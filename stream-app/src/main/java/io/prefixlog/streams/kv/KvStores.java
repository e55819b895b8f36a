package io.prefixlog.streams.kv;

import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
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

  /**
   * Supplies the processors {@code processors} makes and declares their one store, {@code store}
   * ({@link #logged}).
   *
   * @param changelog the store's changelog topic settings ({@code max.compaction.lag.ms}: an erased
   *     session id leaves the broker within that long)
   */
  static <V> ProcessorSupplier<String, V, Object, Object> supplier(
      String store,
      Map<String, String> changelog,
      Supplier<Processor<String, V, Object, Object>> processors) {
    Map<String, String> settings = Map.copyOf(changelog);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, V, Object, Object> get() {
        return processors.get();
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return logged(store, settings);
      }
    };
  }
}
