package io.prefixlog.streams.kv;

import static io.prefixlog.streams.kv.KvBatches.batch;
import static io.prefixlog.streams.kv.KvBatches.bytes;
import static io.prefixlog.streams.kv.KvBatches.cleared;
import static io.prefixlog.streams.kv.KvBatches.marker;
import static io.prefixlog.streams.kv.KvBatches.other;
import static io.prefixlog.streams.kv.KvBatches.removed;
import static io.prefixlog.streams.kv.KvBatches.removedIn;
import static io.prefixlog.streams.kv.KvBatches.stored;
import static io.prefixlog.streams.kv.KvBatches.storedIn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KvIndexTopologyTest {
  private static final KvSource A = KvSource.of("tcp://10.0.0.1:5557", 0, "kv");
  private static final KvSource B = KvSource.of("tcp://10.0.0.2:5557", 0, "kv");

  /** A source whose id extends A's with "/" and hex: its keys fall under A's prefix scan. */
  private static final KvSource A_EXTENDED = KvSource.of("tcp://10.0.0.1:5557", 0, "kv/ab");

  private static final long T0 = 1_750_000_000_000L;

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> events;
  private TestOutputTopic<String, BlockIndexEntry> index;
  private TestOutputTopic<String, SourceStats> stats;
  private TestOutputTopic<byte[], DeadLetter> deadLetters;
  private TestOutputTopic<String, ErasureAck> acks;
  private MeterRegistry registry;

  /** The compacted view of the index topic: last value per key, tombstones remove. */
  private final Map<String, BlockIndexEntry> compacted = new TreeMap<>();

  @BeforeEach
  void start() {
    StreamAppConfig config =
        StreamAppConfig.defaults(
            Map.of(
                "PREFIXLOG_STATE_DIR", stateDir.toString(), "PREFIXLOG_KV_STATS_INTERVAL", "10s"));
    KvTopologyDriver kv = new KvTopologyDriver(config, T0);
    registry = kv.registry;
    driver = kv.driver;
    events = kv.events;
    index = kv.index;
    stats = kv.stats;
    Topics topics = config.topics();
    deadLetters =
        driver.createOutputTopic(
            topics.deadLetters().name(),
            Serdes.ByteArray().deserializer(),
            JsonSerde.of(DeadLetter.class).deserializer());
    acks =
        driver.createOutputTopic(
            topics.erasures().name(),
            Serdes.String().deserializer(),
            JsonSerde.of(ErasureAck.class).deserializer());
  }

  @AfterEach
  void close() {
    driver.close();
  }

  @Test
  void shouldKeepABlockStoredTwiceUntilItsSecondCopyIsRemoved() {
    // Given
    send(batch(A, 1, T0, stored("aa01")));
    send(batch(A, 2, T0 + 100, stored("aa01")));

    // When
    send(batch(A, 3, T0 + 200, removed("aa01")));

    // Then
    List<KeyValue<String, BlockIndexEntry>> out = readIndex();
    assertThat(out).extracting(kv -> kv.key).containsOnly(A.id() + "/aa01");
    assertThat(out).extracting(kv -> kv.value.copies()).containsExactly(1, 2, 1);
    assertThat(out.get(2).value)
        .isEqualTo(
            new BlockIndexEntry(
                A.id(), "aa01", "GPU", 0, 1, 16, 16, null, null, null, T0, T0 + 100, null, 3L));

    // When
    send(batch(A, 4, T0 + 300, removed("aa01")));

    // Then
    List<KeyValue<String, BlockIndexEntry>> tombstone = readIndex();
    assertThat(tombstone).containsExactly(KeyValue.pair(A.id() + "/aa01", null));
    assertThat(Meters.count(registry, KvIndexMetrics.TOMBSTONES, "cause", "removed")).isEqualTo(1);
    assertThat(Meters.count(registry, KvIndexMetrics.UNKNOWN_REMOVALS)).isZero();
  }

  @Test
  void shouldEmitEachTouchedBlockOnceWithItsStateAtTheEndOfTheBatch() {
    // When: one batch stores bb twice and cc once, then removes cc
    send(batch(A, 1, T0, stored("bb01", "cc01"), stored("bb01"), removed("cc01")));

    // Then: bb with two copies; cc came and went, so nothing at all
    assertThat(readIndex())
        .containsExactly(
            KeyValue.pair(
                A.id() + "/bb01",
                new BlockIndexEntry(
                    A.id(), "bb01", "GPU", 0, 2, 16, 16, null, null, null, T0, T0, null, 1L)));
  }

  @Test
  void shouldReEmitAnEntryWhenItChanges() {
    // Given
    send(batch(A, 1, T0, storedIn("GPU", 0, null, "dd01", "dd02")));
    readIndex();

    // When: dd02 is offloaded to the CPU tier with a session id
    send(batch(A, 2, T0 + 500, storedIn("CPU", null, "sess-1", "dd02")));
    // and its GPU copy evicted: the CPU copy still holds the hash
    send(batch(A, 3, T0 + 900, removedIn("GPU", 0, "dd02")));

    // Then
    List<KeyValue<String, BlockIndexEntry>> out = readIndex();
    assertThat(out)
        .containsExactly(
            KeyValue.pair(
                A.id() + "/dd02",
                new BlockIndexEntry(
                    A.id(), "dd02", "CPU", null, 2, 16, 16, "dd01", null, null, T0, T0 + 500,
                    "sess-1", 2L)),
            KeyValue.pair(
                A.id() + "/dd02",
                new BlockIndexEntry(
                    A.id(), "dd02", "CPU", null, 1, 16, 16, "dd01", null, null, T0, T0 + 500,
                    "sess-1", 3L)));

    // When: a CPU removal of dd01, which only the GPU holds, is an unknown removal
    send(batch(A, 4, T0 + 1000, removedIn("CPU", null, "dd01")));

    // Then
    assertThat(index.isEmpty()).isTrue();
    assertThat(Meters.count(registry, KvIndexMetrics.UNKNOWN_REMOVALS)).isEqualTo(1);
  }

  @Test
  void shouldKeepParentLoraAndTokenSpanOfEachBlockOfARun() {
    // When
    KvEvent run =
        new KvEvent(
            KvEvent.BLOCK_STORED,
            List.of("e1", "e2"),
            "e0",
            32,
            16,
            7L,
            "sql",
            "GPU",
            1,
            "full_attention",
            null,
            null,
            "s-9",
            null);
    send(batch(A, 5, T0, run));

    // Then
    assertThat(readIndex().stream().map(kv -> kv.value).toList())
        .containsExactly(
            new BlockIndexEntry(
                A.id(), "e1", "GPU", 1, 1, 16, 16, "e0", 7L, "sql", T0, T0, "s-9", 5L),
            new BlockIndexEntry(
                A.id(), "e2", "GPU", 1, 1, 16, 16, "e1", 7L, "sql", T0, T0, "s-9", 5L));
  }

  @Test
  void shouldCountRemovalsOfUnknownBlocksAndEmitNothing() {
    // When
    send(batch(A, 1, T0, removed("ff01", "ff02"), other("BlockInactive", "ff03")));

    // Then
    assertThat(index.isEmpty()).isTrue();
    assertThat(Meters.count(registry, KvIndexMetrics.UNKNOWN_REMOVALS)).isEqualTo(2);
    assertThat(Meters.count(registry, KvIndexMetrics.EVENTS, "type", "other")).isEqualTo(1);
  }

  @Test
  void shouldTombstoneEveryBlockOfTheSourceOnAllBlocksClearedAndRebuildFromWhatFollows() {
    // Given
    seedThreeSources();

    // When: A clears its cache, then stores a new block in the same batch
    send(batch(A, 3, T0 + 100, cleared(), stored("a9")));

    // Then
    assertThat(readIndex())
        .containsExactlyInAnyOrder(
            KeyValue.pair(A.id() + "/a1", null),
            KeyValue.pair(A.id() + "/a2", null),
            KeyValue.pair(A.id() + "/a3", null),
            KeyValue.pair(
                A.id() + "/a9",
                new BlockIndexEntry(
                    A.id(), "a9", "GPU", 0, 1, 16, 16, null, null, null, T0 + 100, T0 + 100, null,
                    3L)));
    assertThat(compacted.keySet())
        .containsExactlyInAnyOrder(
            A.id() + "/a9", B.id() + "/b1", B.id() + "/b2", A_EXTENDED.id() + "/c1");
    assertThat(Meters.count(registry, KvIndexMetrics.TOMBSTONES, "cause", "cleared")).isEqualTo(3);
  }

  @ParameterizedTest
  @ValueSource(strings = {KvEventBatch.MARKER_GAP, KvEventBatch.MARKER_RESTART})
  void shouldTombstoneEveryBlockOfTheSourceOnAMarkerButNoOtherSource(String kind) {
    // Given
    seedThreeSources();

    // When
    send(marker(A, kind, 9, T0 + 100));

    // Then
    assertThat(readIndex())
        .containsExactlyInAnyOrder(
            KeyValue.pair(A.id() + "/a1", null),
            KeyValue.pair(A.id() + "/a2", null),
            KeyValue.pair(A.id() + "/a3", null));
    assertThat(compacted.keySet())
        .containsExactlyInAnyOrder(B.id() + "/b1", B.id() + "/b2", A_EXTENDED.id() + "/c1");
    assertThat(Meters.count(registry, KvIndexMetrics.BATCHES, "kind", kind)).isEqualTo(1);

    // When: the old blocks are removed after the marker (evicted by the restarted engine)
    send(batch(A, 10, T0 + 200, removed("a1")));

    // Then: unknown now, counted, no output
    assertThat(index.isEmpty()).isTrue();
    assertThat(Meters.count(registry, KvIndexMetrics.UNKNOWN_REMOVALS)).isEqualTo(1);
  }

  @Test
  void shouldDeadLetterBadRecordsCountThemAndLoseNothingElse() {
    // Given
    KvEventBatch good = batch(A, 1, T0, stored("0a0b"));
    KvEventBatch badHash = batch(A, 2, T0, stored("0a0b"), stored("XYZ"));
    KvEventBatch future =
        new KvEventBatch(
            2, A.id(), A.endpoint(), 0, "kv", 3L, T0, null, null, null, null, good.events());

    // When
    events.pipeInput(A.id(), "{not json".getBytes(StandardCharsets.UTF_8));
    events.pipeInput(B.id(), bytes(good)); // key is not the batch's source
    events.pipeInput(A.id(), bytes(badHash));
    events.pipeInput(A.id(), bytes(future));
    events.pipeInput(A.id(), bytes(marker(A, "snapshot", 4, T0)));
    events.pipeInput(A.id(), bytes(batch(A, 5, T0, stored("ab".repeat(65)))));
    events.pipeInput(A.id(), bytes(batch(A, 6, T0, removedIn("GPU", -1, "0a0b"))));
    events.pipeInput(A.id(), bytes(batch(A, 7, T0, storedIn("GPU", 0, "s".repeat(1025), "0a0b"))));
    send(good);

    // Then
    assertThat(deadLetters.readValuesToList())
        .extracting(DeadLetter::reason)
        .containsExactly(
            "invalid_json",
            "key_mismatch",
            "invalid_field",
            "unknown_schema_version",
            "invalid_field",
            "invalid_field",
            "invalid_field",
            "invalid_field");
    assertThat(readIndex().stream().map(kv -> kv.value).toList())
        .extracting(BlockIndexEntry::hash)
        .containsExactly("0a0b");
    assertThat(Meters.count(registry, "prefixlog_dead_letters_total", "reason", "invalid_field"))
        .isEqualTo(5);
  }

  @Test
  void shouldPublishSourceStatisticsAtOnceWhenNewOrClearedAndOtherwiseAtMostPerInterval() {
    // Given: minute m (engine time) = T0's minute
    long m = Math.floorDiv(T0, 60_000L) * 60_000L;
    send(batch(A, 1, m + 1_000, storedIn("GPU", 0, "s1", "01", "02", "03")));
    // Then: a new source is published at once
    assertThat(stats.readValuesToList())
        .containsExactly(
            new SourceStats(
                A.id(),
                m + 1_000,
                1L,
                3L,
                48L,
                3L,
                0L,
                0L,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                0L,
                0L,
                Map.of("s1", 3L)));

    // When: more batches within the interval, then one the next minute
    send(batch(A, 2, m + 2_000, storedIn("GPU", 0, "s2", "04"), removed("01")));
    send(batch(A, 3, m + 5_000, removed("02"), removed("99")));
    send(batch(A, 4, m + 61_000, stored("05")));

    // Then: nothing until the punctuator runs
    assertThat(stats.isEmpty()).isTrue();
    driver.advanceWallClockTime(Duration.ofSeconds(10));
    SourceStats steady = stats.readValue();
    assertThat(stats.isEmpty()).isTrue();
    // resident: 03, 04, 05; last whole minute m: 4 stores, 3 removals (one unknown)
    // lifetimes: 01 lived 1 s, 02 lived 4 s (reported as the middles of their histogram
    // buckets, 2^(1/16) wide: 1002 and 4008 ms)
    assertThat(steady)
        .isEqualTo(
            new SourceStats(
                A.id(),
                m + 61_000,
                4L,
                3L,
                48L,
                5L,
                3L,
                0L,
                4.0,
                3.0,
                0.0,
                2L,
                1_002L,
                4_008L,
                4_008L,
                0L,
                0L,
                Map.of("s1", 3L, "s2", 1L)));

    // When: nothing changed, the punctuator emits nothing
    driver.advanceWallClockTime(Duration.ofSeconds(10));
    assertThat(stats.isEmpty()).isTrue();

    // When: a restart marker, then a gap marker
    send(marker(A, KvEventBatch.MARKER_RESTART, 0, m + 70_000));
    send(marker(A, KvEventBatch.MARKER_GAP, 5, m + 71_000));

    // Then: both at once, with nothing resident
    List<SourceStats> cleared = stats.readValuesToList();
    assertThat(cleared).extracting(SourceStats::residentBlocks).containsExactly(0L, 0L);
    assertThat(cleared).extracting(SourceStats::residentTokens).containsExactly(0L, 0L);
    assertThat(cleared).extracting(SourceStats::restarts).containsExactly(1L, 1L);
    assertThat(cleared).extracting(SourceStats::gaps).containsExactly(0L, 1L);
    assertThat(Meters.count(registry, KvIndexMetrics.STATS)).isEqualTo(4);
  }

  @Test
  void shouldAgreeWithASimpleReferenceModelOnRandomTraffic() {
    // Given: a reference — hash -> copies, cleared by AllBlocksCleared
    java.util.Random random = new java.util.Random(42);
    Map<String, Integer> model = new HashMap<>();
    long seq = 0;
    for (int b = 0; b < 400; b++) {
      List<KvEvent> batch = new ArrayList<>();
      for (int e = 0; e < 1 + random.nextInt(4); e++) {
        int kind = random.nextInt(20);
        String hash = String.format("%02x", random.nextInt(24));
        if (kind == 0) {
          batch.add(cleared());
          model.clear();
        } else if (kind < 12) {
          batch.add(stored(hash));
          model.merge(hash, 1, Integer::sum);
        } else {
          batch.add(removed(hash));
          model.computeIfPresent(hash, (h, c) -> c == 1 ? null : c - 1);
        }
      }
      // When
      send(batch(A, seq++, T0 + b, batch.toArray(KvEvent[]::new)));
    }
    // Then
    readIndex();
    Map<String, Integer> actual = new TreeMap<>();
    compacted.forEach((k, v) -> actual.put(v.hash(), v.copies()));
    assertThat(actual).isEqualTo(new TreeMap<>(model));
    driver.advanceWallClockTime(Duration.ofSeconds(10));
    List<SourceStats> all = stats.readValuesToList();
    assertThat(all.get(all.size() - 1).residentBlocks()).isEqualTo(model.size());
    assertThat(new TreeSet<>(compacted.keySet()))
        .allSatisfy(k -> assertThat(k).startsWith(A.id() + "/"));
  }

  @Test
  void shouldLeaveTheKvNodesOutWhenDisabled() {
    // Given
    StreamAppConfig config =
        StreamAppConfig.defaults(Map.of("PREFIXLOG_KV_INDEX_ENABLED", "false"));

    // When
    String described =
        PrefixlogTopology.build(config, new StreamAppMetrics(new SimpleMeterRegistry()))
            .describe()
            .toString();

    // Then
    assertThat(described).doesNotContain("kv-").contains("session-delta");
  }

  // --- helpers ---

  private void seedThreeSources() {
    send(batch(A, 1, T0, stored("a1", "a2")));
    send(batch(B, 1, T0, stored("b1", "b2")));
    send(batch(A_EXTENDED, 1, T0, stored("c1")));
    send(batch(A, 2, T0, stored("a3")));
    readIndex();
    assertThat(compacted).hasSize(6);
  }

  @Test
  void shouldForgetAnErasedSessionInTheBlocksAndTheStatisticsOfTheSource() {
    // Given: blocks of two sessions on A, and one of the first on a source whose id extends A's
    send(
        batch(
            A, 1, T0, storedIn("GPU", 0, "s1", "aa01", "aa02"), storedIn("GPU", 0, "s2", "aa03")));
    send(batch(A_EXTENDED, 1, T0, storedIn("GPU", 0, "s1", "bb01")));
    readIndex();
    stats.readValuesToList();

    // When: an erase order for s1 reaches A
    sendErase(A.id(), "erase-1", "s1");

    // Then: A's two blocks of s1 are published again without the id; nothing else changes
    List<KeyValue<String, BlockIndexEntry>> out = readIndex();
    assertThat(out).extracting(kv -> kv.key).containsExactly(A.id() + "/aa01", A.id() + "/aa02");
    assertThat(out).extracting(kv -> kv.value.sessionId()).containsOnlyNulls();
    assertThat(compacted.get(A.id() + "/aa03").sessionId()).isEqualTo("s2");
    assertThat(compacted.get(A_EXTENDED.id() + "/bb01").sessionId()).isEqualTo("s1");
    // and A's statistics are published at once without it
    assertThat(stats.readValuesToList())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.source()).isEqualTo(A.id());
              assertThat(s.blocksStoredBySession()).containsOnlyKeys("s2");
            });
    // and the order is acknowledged with what it did
    ErasureAck ack = acks.readValue();
    assertThat(ack.scope()).isEqualTo(ErasureAck.SCOPE_KV);
    assertThat(ack.source()).isEqualTo(A.id());
    assertThat(ack.eraseId()).isEqualTo("erase-1");
    assertThat(ack.outcome()).isEqualTo(ErasureAck.ERASED);
    assertThat(ack.blocksScrubbed()).isEqualTo(2);
    assertThat(ack.statsSessionsRemoved()).isEqualTo(1);
    assertThat(Meters.count(registry, "prefixlog_kv_erasures_total", "outcome", "erased"))
        .isEqualTo(1);

    // When: the engine stores a block for s1 again (new data, after the order)
    send(batch(A, 2, T0 + 10, storedIn("GPU", 0, "s1", "aa04")));

    // Then: it is indexed as any block
    assertThat(readIndex()).extracting(kv -> kv.value.sessionId()).containsExactly("s1");
  }

  @Test
  void shouldAcknowledgeAnOrderForASourceThatHoldsNothingOfTheSession() {
    // Given
    send(batch(A, 1, T0, storedIn("GPU", 0, "s2", "aa01")));
    readIndex();

    // When
    sendErase(A.id(), "erase-2", "s1");
    sendErase(B.id(), "erase-2", "s1");

    // Then
    assertThat(readIndex()).isEmpty();
    assertThat(acks.readValuesToList())
        .extracting(ErasureAck::source, ErasureAck::outcome)
        .containsExactly(tuple(A.id(), ErasureAck.ABSENT), tuple(B.id(), ErasureAck.ABSENT));
  }

  @Test
  void shouldDeadLetterAMalformedKvOrder() {
    // When: an order without ids, and a session order sent to the KV topic
    Headers headers = ControlHeaders.markErase(new RecordHeaders());
    events.pipeInput(
        new TestRecord<>(
            A.id(),
            "{\"schema_version\":1,\"erase_id\":\"e\",\"ts\":1}".getBytes(StandardCharsets.UTF_8),
            headers));
    events.pipeInput(
        new TestRecord<>(
            A.id(),
            JsonSerde.of(EraseRequest.class).toBytes(EraseRequest.forSession("e", 1, "s1", null)),
            headers));

    // Then
    assertThat(deadLetters.readValuesToList())
        .extracting(DeadLetter::reason, DeadLetter::detail)
        .containsExactly(
            tuple("invalid_control", "kv_session_id_sha256 is missing or empty"),
            tuple(
                "invalid_control",
                "session_key and before belong on requests.raw, not on kv.events"));
    assertThat(acks.isEmpty()).isTrue();
  }

  private void sendErase(String source, String eraseId, String... ids) {
    byte[] order =
        JsonSerde.of(EraseRequest.class)
            .toBytes(
                EraseRequest.forKv(
                    eraseId,
                    T0,
                    java.util.Arrays.stream(ids)
                        .map(id -> Sha256.hex(id.getBytes(StandardCharsets.UTF_8)))
                        .toList()));
    events.pipeInput(
        new TestRecord<>(source, order, ControlHeaders.markErase(new RecordHeaders())));
  }

  @Test
  void shouldHoldABatchFromAClockEightDaysAheadToTheSkewBound() {
    // Given: the bound is PREFIXLOG_MAX_CLOCK_SKEW (5 min) past this machine's clock
    long skew = Duration.ofMinutes(5).toMillis();
    long eightDaysAhead = System.currentTimeMillis() + Duration.ofDays(8).toMillis();

    // When
    long before = System.currentTimeMillis();
    events.pipeInput(A.id(), bytes(batch(A, 1, eightDaysAhead, stored("aa01"))), eightDaysAhead);
    long after = System.currentTimeMillis();

    // Then: written at the bound, the batch's own time kept in the entry
    List<TestRecord<String, BlockIndexEntry>> out = index.readRecordsToList();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).timestamp()).isBetween(before + skew, after + skew);
    assertThat(out.get(0).value().firstStoredMs()).isEqualTo(eightDaysAhead);
    assertThat(
            Meters.count(
                registry, "prefixlog_record_time_clamped_total", "topic", "prefixlog.kv.events"))
        .isEqualTo(1);
  }

  private void send(KvEventBatch batch) {
    events.pipeInput(batch.source(), bytes(batch));
  }

  /** Reads what the index topic received so far, applying it to the compacted view. */
  private List<KeyValue<String, BlockIndexEntry>> readIndex() {
    List<KeyValue<String, BlockIndexEntry>> records = index.readKeyValuesToList();
    for (KeyValue<String, BlockIndexEntry> kv : records) {
      if (kv.value == null) {
        compacted.remove(kv.key);
      } else {
        compacted.put(kv.key, kv.value);
      }
    }
    return records;
  }
}
