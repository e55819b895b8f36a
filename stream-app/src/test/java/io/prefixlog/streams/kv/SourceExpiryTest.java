package io.prefixlog.streams.kv;

import static io.prefixlog.streams.kv.KvBatches.batch;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source silent for longer than {@code PREFIXLOG_KV_SOURCE_EXPIRY} in stream time (a retired
 * engine) is expired: its blocks are tombstoned in steps of {@code PREFIXLOG_BULK_BATCH}, its
 * statistics tombstoned, both gone from the stores; a source that goes on sending is untouched, and
 * the expired one starts afresh if it sends again.
 */
class SourceExpiryTest {
  private static final KvSource RETIRED = KvSource.of("tcp://10.0.0.1:5557", 0, "kv");
  private static final KvSource LIVE = KvSource.of("tcp://10.0.0.2:5557", 0, "kv");
  private static final int BLOCKS = 450;
  private static final int BATCH = 100;
  private static final long T0 = 1_750_000_000_000L;
  private static final Duration EXPIRY = Duration.ofHours(1);
  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final String EXPIRED = "prefixlog_kv_sources_expired_total";

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> events;
  private TestOutputTopic<String, BlockIndexEntry> index;
  private TestOutputTopic<String, SourceStats> stats;
  private MeterRegistry registry;

  private void start(String expiry) {
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
                "1h",
                "PREFIXLOG_KV_SOURCE_EXPIRY",
                expiry));
    KvTopologyDriver kv = new KvTopologyDriver(config, T0);
    registry = kv.registry;
    driver = kv.driver;
    events = kv.events;
    index = kv.index;
    stats = kv.stats;
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldExpireASilentSourceInBoundedStepsAndLetItStartAfresh() {
    // Given: the retired source holds 450 blocks (more than four steps' worth), the live one ten
    start("1h");
    long seq = 1;
    for (int first = 0; first < BLOCKS; first += 50) {
      send(batch(RETIRED, seq++, T0, stored(hashes("a", first, 50))), T0);
    }
    send(batch(LIVE, 1, T0, stored(hashes("b", 0, 10))), T0);
    index.readKeyValuesToList();
    stats.readKeyValuesToList();

    // When: only the live source sends, until the retired one has been silent for just the expiry
    send(batch(LIVE, 2, T0 + EXPIRY.toMillis(), stored("bb000001")), T0 + EXPIRY.toMillis());
    driver.advanceWallClockTime(INTERVAL);

    // Then: nothing is expired yet (the expiry is silence longer than the setting)
    assertThat(index.readKeyValuesToList())
        .extracting(kv -> kv.key)
        .containsExactly(key(LIVE, "bb000001"));
    assertThat(Meters.count(registry, EXPIRED)).isZero();
    assertThat(blockKeys(RETIRED)).hasSize(BLOCKS);

    // When: the live source sends a minute later, and the bulk steps run until nothing is pending
    long later = T0 + EXPIRY.toMillis() + 60_000;
    send(batch(LIVE, 3, later, stored("bb000002")), later);
    List<KeyValue<String, BlockIndexEntry>> out = new ArrayList<>(index.readKeyValuesToList());
    int steps = 0;
    do {
      driver.advanceWallClockTime(INTERVAL);
      steps++;
      List<KeyValue<String, BlockIndexEntry>> step = index.readKeyValuesToList();
      // Then: each step tombstones at most a batch
      assertThat(step).hasSizeLessThanOrEqualTo(BATCH);
      out.addAll(step);
    } while (Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "kv_clear") > 0);

    // Then: every block of the retired source is tombstoned, in five steps, at the expiry's
    // stream time; the live source's blocks only got their own new entry
    Map<String, BlockIndexEntry> emitted = new HashMap<>();
    out.forEach(kv -> emitted.put(kv.key, kv.value));
    List<String> tombstoned = new ArrayList<>();
    out.stream().filter(kv -> kv.value == null).forEach(kv -> tombstoned.add(kv.key));
    assertThat(tombstoned)
        .containsExactlyInAnyOrderElementsOf(keys(RETIRED, hashes("a", 0, BLOCKS)));
    assertThat(out)
        .filteredOn(kv -> kv.key.startsWith(LIVE.id() + "/"))
        .extracting(kv -> kv.key)
        .containsExactly(key(LIVE, "bb000002"));
    assertThat(steps).isEqualTo(5);
    // and the retired source's statistics are tombstoned, the live one's not
    List<KeyValue<String, SourceStats>> statsOut = stats.readKeyValuesToList();
    assertThat(statsOut).extracting(kv -> kv.key).containsExactly(RETIRED.id());
    assertThat(statsOut.get(0).value).isNull();
    // and the stores hold nothing of it any more (blocks, statistics, clear job, silence)
    assertThat(storeKeys("kv-block-index", RETIRED)).isEmpty();
    assertThat(storeKeys("kv-source-stats", RETIRED)).isEmpty();
    assertThat(blockKeys(LIVE)).hasSize(12);
    assertThat(storeKeys("kv-source-stats", LIVE)).hasSize(1);
    assertThat(Meters.count(registry, EXPIRED)).isEqualTo(1);

    // When: the retired source's endpoint sends again, storing a block it held before and a new one
    long back = later + 3 * EXPIRY.toMillis();
    send(batch(RETIRED, seq, back, stored(hash("a", 0), "ac000001")), back);

    // Then: both are new blocks, first stored now, and its statistics start from them, at once
    List<KeyValue<String, BlockIndexEntry>> fresh = index.readKeyValuesToList();
    assertThat(fresh)
        .extracting(kv -> kv.key)
        .containsExactly(key(RETIRED, hash("a", 0)), key(RETIRED, "ac000001"));
    assertThat(fresh).allSatisfy(kv -> assertThat(kv.value.copies()).isEqualTo(1));
    assertThat(fresh).allSatisfy(kv -> assertThat(kv.value.firstStoredMs()).isEqualTo(back));
    List<KeyValue<String, SourceStats>> again = stats.readKeyValuesToList();
    assertThat(again).extracting(kv -> kv.key).containsExactly(RETIRED.id());
    assertThat(again.get(0).value.residentBlocks()).isEqualTo(2);
    assertThat(again.get(0).value.storesTotal()).isEqualTo(2);
    // and the live source, silent since, is now expired in turn, once
    driver.advanceWallClockTime(INTERVAL);
    assertThat(Meters.count(registry, EXPIRED)).isEqualTo(2);
    driver.advanceWallClockTime(INTERVAL);
    assertThat(Meters.count(registry, EXPIRED)).isEqualTo(2);
    assertThat(storeKeys("kv-block-index", LIVE)).isEmpty();
    assertThat(blockKeys(RETIRED))
        .containsExactlyInAnyOrder(key(RETIRED, hash("a", 0)), key(RETIRED, "ac000001"));
  }

  @Test
  void shouldKeepEverySourceWhenTheExpiryIsOff() {
    // Given: no expiry, and a source silent for thirty days of stream time while another sends
    start("0");
    send(batch(RETIRED, 1, T0, stored(hashes("a", 0, 10))), T0);
    long month = T0 + Duration.ofDays(30).toMillis();
    send(batch(LIVE, 1, month, stored("bb000001")), month);
    index.readKeyValuesToList();
    stats.readKeyValuesToList();

    // When: the bulk steps run
    driver.advanceWallClockTime(Duration.ofSeconds(1));

    // Then: nothing is tombstoned or deleted
    assertThat(index.readKeyValuesToList()).isEmpty();
    assertThat(stats.readKeyValuesToList()).isEmpty();
    assertThat(blockKeys(RETIRED)).hasSize(10);
    assertThat(Meters.count(registry, EXPIRED)).isZero();
  }

  private void send(KvEventBatch batch, long timestamp) {
    events.pipeInput(batch.source(), KvBatches.bytes(batch), timestamp);
  }

  /** Every key of the store that names the source: its blocks, marks, jobs and silence. */
  private List<String> storeKeys(String storeName, KvSource source) {
    KeyValueStore<String, byte[]> store = driver.getKeyValueStore(storeName);
    List<String> keys = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> all = store.all()) {
      all.forEachRemaining(
          kv -> {
            if (kv.key.contains(source.id())) {
              keys.add(kv.key);
            }
          });
    }
    return keys;
  }

  /** The source's blocks in the block-index store. */
  private List<String> blockKeys(KvSource source) {
    return storeKeys("kv-block-index", source).stream()
        .filter(k -> k.startsWith(source.id() + "/"))
        .toList();
  }

  private static String[] hashes(String lead, int first, int count) {
    String[] hashes = new String[count];
    for (int i = 0; i < count; i++) {
      hashes[i] = hash(lead, first + i);
    }
    return hashes;
  }

  private static String hash(String lead, int i) {
    return lead + String.format("%07x", i);
  }

  private static String key(KvSource source, String hash) {
    return source.id() + "/" + hash;
  }

  private static List<String> keys(KvSource source, String... hashes) {
    List<String> keys = new ArrayList<>();
    for (String hash : hashes) {
      keys.add(key(source, hash));
    }
    return keys;
  }
}
