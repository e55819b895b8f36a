package io.prefixlog.core.metrics;

import io.micrometer.core.instrument.config.MeterFilter;
import java.util.List;

/**
 * Gives Kafka Streams' state-store meters one tag key for the store, whatever its type.
 *
 * <p>Kafka Streams tags a key-value store's RocksDB metrics {@code rocksdb-state-id} and a window
 * store's {@code rocksdb-window-state-id} under the same metric names ({@code
 * kafka.stream.state.memtable.flush.time.avg}, …), and Prometheus refuses meters of one name with
 * different tag keys: whichever store registered second lost its metrics, with one WARN at start
 * (seen in {@code up --demo}: the KV source-stats store's RocksDB meters were missing). With every
 * id under {@code rocksdb.state.id}, all stores' meters are exported; the store's name says what it
 * is.
 */
final class StoreTagKeys {
  private static final String PREFIX = "kafka.stream.state";

  private StoreTagKeys() {}

  static List<MeterFilter> filters() {
    return List.of(
        MeterFilter.renameTag(PREFIX, "rocksdb.window.state.id", "rocksdb.state.id"),
        MeterFilter.renameTag(PREFIX, "rocksdb.session.state.id", "rocksdb.state.id"),
        MeterFilter.renameTag(PREFIX, "in.memory.window.state.id", "in.memory.state.id"),
        MeterFilter.renameTag(PREFIX, "in.memory.session.state.id", "in.memory.state.id"));
  }
}
