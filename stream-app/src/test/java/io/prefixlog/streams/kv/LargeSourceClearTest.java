package io.prefixlog.streams.kv;

import static io.prefixlog.streams.kv.KvBatches.batch;
import static io.prefixlog.streams.kv.KvBatches.cleared;
import static io.prefixlog.streams.kv.KvBatches.marker;
import static io.prefixlog.streams.kv.KvBatches.removed;
import static io.prefixlog.streams.kv.KvBatches.stored;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.StreamAppConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source of 100,000 blocks cleared (a restart marker, a gap, AllBlocksCleared): the clear's own
 * transaction and each later one tombstone at most {@code PREFIXLOG_BULK_BATCH} blocks, the rest go
 * in bulk punctuations from a cursor kept in the store, and the batches that arrive meanwhile see
 * the source as empty from the clear on.
 */
class LargeSourceClearTest {
  private static final KvSource A = KvSource.of("tcp://10.0.0.1:5557", 0, "kv");
  private static final KvSource B = KvSource.of("tcp://10.0.0.2:5557", 0, "kv");
  private static final int BLOCKS = 100_000;
  private static final int BATCH = 1000;
  private static final long T0 = 1_750_000_000_000L;
  private static final Duration INTERVAL = Duration.ofMillis(100);

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> events;
  private TestOutputTopic<String, BlockIndexEntry> index;
  private TestOutputTopic<String, SourceStats> stats;
  private MeterRegistry registry;

  /** The compacted view of the index topic: last value per key, tombstones remove. */
  private final Map<String, BlockIndexEntry> compacted = new TreeMap<>();

  @BeforeEach
  void start() {
    StreamAppConfig config =
        StreamAppConfig.defaults(
            Map.of(
                "PREFIXLOG_STATE_DIR",
                stateDir.toString(),
                "PREFIXLOG_BULK_BATCH",
                Integer.toString(BATCH),
                "PREFIXLOG_BULK_INTERVAL",
                INTERVAL.toMillis() + "ms",
                "PREFIXLOG_KV_STATS_INTERVAL",
                "1h"));
    KvTopologyDriver kv = new KvTopologyDriver(config, T0);
    registry = kv.registry;
    driver = kv.driver;
    events = kv.events;
    index = kv.index;
    stats = kv.stats;
  }

  @AfterEach
  void close() {
    driver.close();
  }

  @Test
  void shouldClearAHundredThousandBlocksInBoundedStepsWhileTheSourceGoesOn() {
    // Given: source A holds 100,000 blocks, B ten
    long seq = 1;
    for (int first = 0; first < BLOCKS; first += 1000) {
      send(batch(A, seq++, T0, stored(hashes(first, 1000))));
    }
    send(batch(B, 1, T0, stored(hashes(0, 10))));
    readIndex();
    stats.readValuesToList();

    // When: A's bridge reports a restart
    send(marker(A, KvEventBatch.MARKER_RESTART, seq++, T0 + 1000));

    // Then: its transaction tombstoned at most a step of blocks, and the statistics say at once
    // that nothing is resident
    List<KeyValue<String, BlockIndexEntry>> first = readIndex();
    assertThat(first).hasSizeLessThanOrEqualTo(BATCH).allMatch(kv -> kv.value == null);
    assertThat(lastStats(A).residentBlocks()).isZero();
    assertThat(Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "kv_clear"))
        .isEqualTo(1.0);

    // When: the restarted engine stores five blocks, two of which the index still held from
    // before (not yet deleted), and removes one it held before
    String[] again = {hash(BLOCKS - 2), hash(BLOCKS - 1), "f0000001", "f0000002", "f0000003"};
    send(batch(A, 1, T0 + 2000, stored(again), removed(hash(BLOCKS - 3))));

    // Then: all five are new blocks (one copy, first stored now); the removal is unknown
    List<KeyValue<String, BlockIndexEntry>> fresh = readIndex();
    assertThat(fresh).hasSize(5);
    assertThat(fresh).allSatisfy(kv -> assertThat(kv.value.copies()).isEqualTo(1));
    assertThat(fresh).allSatisfy(kv -> assertThat(kv.value.firstStoredMs()).isEqualTo(T0 + 2000));
    assertThat(Meters.count(registry, KvIndexMetrics.UNKNOWN_REMOVALS)).isEqualTo(1);

    // When: the bulk punctuations go on until the clear is done
    int steps = 0;
    while (Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "kv_clear") > 0) {
      driver.advanceWallClockTime(INTERVAL);
      steps++;
      // Then: each step tombstones at most a batch, and never a block stored after the clear
      List<KeyValue<String, BlockIndexEntry>> step = readIndex();
      assertThat(step).hasSizeLessThanOrEqualTo(BATCH).allMatch(kv -> kv.value == null);
      assertThat(steps).as("steps").isLessThanOrEqualTo(BLOCKS / BATCH + 3);
    }

    // Then: the index topic holds A's five blocks and B's ten, and the store nothing else of A
    assertThat(compacted.keySet().stream().filter(k -> k.startsWith(A.id() + "/")))
        .containsExactlyInAnyOrderElementsOf(keys(A, again));
    assertThat(compacted.keySet().stream().filter(k -> k.startsWith(B.id() + "/"))).hasSize(10);
    assertThat(storeKeys(A)).containsExactlyInAnyOrderElementsOf(keys(A, again));
    assertThat(Meters.count(registry, "prefixlog_bulk_keys_total", "work", "kv_clear"))
        .isEqualTo(BLOCKS - 2);
    // and A's statistics count the five
    driver.advanceWallClockTime(Duration.ofHours(1));
    assertThat(lastStats(A).residentBlocks()).isEqualTo(5);
  }

  @Test
  void shouldStartAgainWhenTheSourceIsClearedOnceMoreMidway() {
    // Given: A holds 10,000 blocks; a clear is under way
    long seq = 1;
    for (int first = 0; first < 10_000; first += 1000) {
      send(batch(A, seq++, T0, stored(hashes(first, 1000))));
    }
    send(batch(A, seq++, T0 + 100, cleared()));
    driver.advanceWallClockTime(INTERVAL);
    // and blocks stored after it, both behind and ahead of where the clear has got to
    String[] between = {hash(1), hash(9_999), "f0000001"};
    send(batch(A, seq++, T0 + 200, stored(between)));
    readIndex();

    // When: the source is cleared again, then stores three other blocks
    send(marker(A, KvEventBatch.MARKER_GAP, seq++, T0 + 300));
    String[] after = {hash(2), hash(9_998), "f0000002"};
    send(batch(A, seq, T0 + 400, stored(after)));
    while (Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "kv_clear") > 0) {
      driver.advanceWallClockTime(INTERVAL);
    }
    readIndex();

    // Then: only the blocks stored after the second clear are left, in the topic and the store
    assertThat(compacted.keySet()).containsExactlyInAnyOrderElementsOf(keys(A, after));
    assertThat(storeKeys(A)).containsExactlyInAnyOrderElementsOf(keys(A, after));
  }

  private void send(KvEventBatch batch) {
    events.pipeInput(batch.source(), KvBatches.bytes(batch));
  }

  private List<KeyValue<String, BlockIndexEntry>> readIndex() {
    List<KeyValue<String, BlockIndexEntry>> out = index.readKeyValuesToList();
    for (KeyValue<String, BlockIndexEntry> kv : out) {
      if (kv.value == null) {
        compacted.remove(kv.key);
      } else {
        compacted.put(kv.key, kv.value);
      }
    }
    return out;
  }

  private SourceStats lastStats(KvSource source) {
    SourceStats last = null;
    for (KeyValue<String, SourceStats> kv : stats.readKeyValuesToList()) {
      if (kv.key.equals(source.id())) {
        last = kv.value;
      }
    }
    assertThat(last).as("statistics of " + source.id()).isNotNull();
    return last;
  }

  /** Every key the block-index store holds under the source's prefix. */
  private List<String> storeKeys(KvSource source) {
    KeyValueStore<String, byte[]> store = driver.getKeyValueStore("kv-block-index");
    List<String> keys = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> all = store.all()) {
      all.forEachRemaining(
          kv -> {
            if (kv.key.startsWith(source.id() + "/")) {
              keys.add(kv.key);
            }
          });
    }
    return keys;
  }

  private static String[] hashes(int first, int count) {
    String[] hashes = new String[count];
    for (int i = 0; i < count; i++) {
      hashes[i] = hash(first + i);
    }
    return hashes;
  }

  private static String hash(int i) {
    return String.format("%08x", i);
  }

  private static List<String> keys(KvSource source, String... hashes) {
    List<String> keys = new ArrayList<>();
    for (String hash : hashes) {
      keys.add(source.id() + "/" + hash);
    }
    return keys;
  }
}
