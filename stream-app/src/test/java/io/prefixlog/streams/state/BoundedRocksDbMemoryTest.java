package io.prefixlog.streams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class BoundedRocksDbMemoryTest {
  @TempDir Path dir;

  @Test
  void shouldGiveEveryStoreOneCacheOfTheBudget() {
    // When
    Map<String, Double> capacities = blockCacheCapacities("64MiB");

    // Then: the session stores all report the one 64 MiB cache
    assertThat(capacities)
        .containsKeys("session-state", "session-bases", "session-idle-index")
        .allSatisfy(
            (store, capacity) -> assertThat(capacity).as(store).isEqualTo(64.0 * (1 << 20)));
  }

  @Test
  void shouldLeaveKafkaStreamsDefaultsWhenTheBudgetIsZero() {
    // When
    Map<String, Double> capacities = blockCacheCapacities("0");

    // Then: Kafka Streams' own 50 MiB cache per store
    assertThat(capacities)
        .containsKeys("session-state", "session-bases")
        .allSatisfy(
            (store, capacity) -> assertThat(capacity).as(store).isEqualTo(50.0 * (1 << 20)));
  }

  @Test
  void shouldShareOneWriteBufferManagerAndCacheIndexAndFilterBlocks() {
    // Given
    RocksDB.loadLibrary();
    BoundedRocksDbMemory setter = new BoundedRocksDbMemory();
    Map<String, Object> configs = Map.of(BoundedRocksDbMemory.MEMORY_BYTES_CONFIG, 32L << 20);
    try (Options a = withTable();
        Options b = withTable()) {
      // When
      setter.setConfig("a", a, configs);
      setter.setConfig("b", b, configs);

      // Then
      assertThat(a.writeBufferManager()).isNotNull().isSameAs(b.writeBufferManager());
      BlockBasedTableConfig table = (BlockBasedTableConfig) a.tableFormatConfig();
      assertThat(table.cacheIndexAndFilterBlocks()).isTrue();
      assertThat(table.cacheIndexAndFilterBlocksWithHighPriority()).isTrue();
      assertThat(table.pinTopLevelIndexAndFilter()).isTrue();
    }
  }

  @Test
  void shouldRefuseABudgetThatIsNotAPositiveByteCount() {
    assertThatThrownBy(() -> BoundedRocksDbMemory.memoryBytes(Map.of()))
        .hasMessage("prefixlog.rocksdb.memory.bytes is not a byte count: null");
    assertThatThrownBy(
            () ->
                BoundedRocksDbMemory.memoryBytes(
                    Map.of(BoundedRocksDbMemory.MEMORY_BYTES_CONFIG, 0)))
        .hasMessage("prefixlog.rocksdb.memory.bytes must be above zero: 0");
  }

  private static Options withTable() {
    Options options = new Options();
    options.setTableFormatConfig(new BlockBasedTableConfig());
    return options;
  }

  /** The block-cache-capacity metric of each RocksDB store of the real topology. */
  private Map<String, Double> blockCacheCapacities(String memory) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve(memory).toString());
    settings.put("PREFIXLOG_ROCKSDB_MEMORY", memory);
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    StreamAppMetrics metrics = new StreamAppMetrics(new SimpleMeterRegistry());
    Map<String, Double> capacities = new TreeMap<>();
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, metrics),
            StreamApp.streamsProperties(config, metrics))) {
      for (Map.Entry<MetricName, ? extends Metric> entry : driver.metrics().entrySet()) {
        MetricName name = entry.getKey();
        if (name.name().equals("block-cache-capacity")) {
          // Key-value stores only: a segmented window store reports per segment, none yet here.
          String store = name.tags().get("rocksdb-state-id");
          if (store != null) {
            capacities.put(store, ((Number) entry.getValue().metricValue()).doubleValue());
          }
        }
      }
    }
    return capacities;
  }
}
