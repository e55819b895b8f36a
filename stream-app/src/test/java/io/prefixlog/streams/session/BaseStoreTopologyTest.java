package io.prefixlog.streams.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.delta.BaseRecordCodec;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.lookup.LookupInputs;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bases store as a log of deltas ({@link BaseStore}), through the real topology over real agent
 * sessions: what it writes to its changelog, and that a base read back from its records (no cache,
 * as after a restore) gives exactly the deltas a cached one gives.
 */
class BaseStoreTopologyTest {
  private static final long T0 = 1_764_000_000_000L;

  @TempDir Path cachedDir;
  @TempDir Path uncachedDir;
  @TempDir Path corruptDir;

  /** Twelve tau-bench airline runs, interleaved turn by turn as concurrent sessions arrive. */
  private static List<KeyValue<String, byte[]>> interleavedRuns(List<List<byte[]>> runs) {
    List<KeyValue<String, byte[]>> events = new ArrayList<>();
    int longest = runs.stream().mapToInt(List::size).max().orElse(0);
    int n = 0;
    for (int turn = 0; turn < longest; turn++) {
      for (int run = 0; run < runs.size(); run++) {
        if (turn < runs.get(run).size()) {
          String session = String.format("%032x", run + 1);
          n++;
          events.add(
              KeyValue.pair(
                  session,
                  LookupInputs.bytes(
                      LookupInputs.event(
                          "req-" + n, T0 + n, session, "gpt-4o", runs.get(run).get(turn), null))));
        }
      }
    }
    return events;
  }

  private static final class Run implements AutoCloseable {
    final TopologyTestDriver driver;
    final TestInputTopic<String, byte[]> raw;
    final TestOutputTopic<String, byte[]> deltas;
    final TestOutputTopic<String, byte[]> basesChangelog;
    final MeterRegistry registry = new SimpleMeterRegistry();

    Run(Path stateDir, Map<String, String> extra) {
      Map<String, String> settings = new HashMap<>(extra);
      settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
      StreamAppConfig config = StreamAppConfig.defaults(settings);
      Properties properties = StreamApp.streamsProperties(config);
      driver =
          new TopologyTestDriver(
              PrefixlogTopology.build(config, new StreamAppMetrics(registry)), properties);
      Topics topics = config.topics();
      raw =
          driver.createInputTopic(
              topics.requestsRaw().name(),
              Serdes.String().serializer(),
              Serdes.ByteArray().serializer());
      deltas =
          driver.createOutputTopic(
              topics.sessionDeltas().name(),
              Serdes.String().deserializer(),
              Serdes.ByteArray().deserializer());
      basesChangelog =
          driver.createOutputTopic(
              config.applicationId() + "-" + SessionStores.BASES + "-changelog",
              Serdes.String().deserializer(),
              Serdes.ByteArray().deserializer());
    }

    double counter(String name) {
      return registry.get(name).counter().count();
    }

    @Override
    public void close() {
      driver.close();
    }
  }

  @Test
  void shouldWriteDeltasToTheBasesChangelogAndRebuildEveryBaseFromThemExactly() {
    // Given
    List<List<byte[]>> runs = LookupInputs.airlineRuns(12);
    List<KeyValue<String, byte[]>> events = interleavedRuns(runs);
    long bodyBytes = runs.stream().flatMap(List::stream).mapToLong(b -> b.length).sum();

    // When: once with the base cache, once without it (every base read back from its records)
    List<KeyValue<String, byte[]>> cachedDeltas;
    List<KeyValue<String, byte[]>> uncachedDeltas;
    long changelogBytes = 0;
    int wholeRecords = 0;
    int opsRecords = 0;
    try (Run cached = new Run(cachedDir, Map.of());
        Run uncached = new Run(uncachedDir, Map.of("PREFIXLOG_BASE_CACHE_BYTES", "0"))) {
      events.forEach(e -> cached.raw.pipeInput(e.key, e.value, T0));
      events.forEach(e -> uncached.raw.pipeInput(e.key, e.value, T0));
      cachedDeltas = cached.deltas.readKeyValuesToList();
      uncachedDeltas = uncached.deltas.readKeyValuesToList();
      for (KeyValue<String, byte[]> record : cached.basesChangelog.readKeyValuesToList()) {
        if (record.value != null) {
          changelogBytes += record.value.length;
          if (BaseRecordCodec.decode(record.value).whole()) {
            wholeRecords++;
          } else {
            opsRecords++;
          }
        }
      }
      assertThat(cached.counter("prefixlog_base_rebuild_failures_total")).isZero();
      assertThat(uncached.counter("prefixlog_base_rebuild_failures_total")).isZero();
    }

    // Then: the same delta records, byte for byte, whether a base came from memory or its records
    assertThat(cachedDeltas).hasSize(events.size());
    assertThat(uncachedDeltas).hasSize(events.size());
    for (int i = 0; i < events.size(); i++) {
      assertThat(uncachedDeltas.get(i).key).isEqualTo(cachedDeltas.get(i).key);
      assertThat(uncachedDeltas.get(i).value)
          .as("delta %s", cachedDeltas.get(i).key)
          .isEqualTo(cachedDeltas.get(i).value);
    }
    // and the bases store holds each session's first body whole and the later ones as ops, which
    // together are a small share of the bodies the requests carried
    assertThat(wholeRecords).isEqualTo(runs.size());
    assertThat(opsRecords).isEqualTo(events.size() - runs.size());
    assertThat(changelogBytes).isLessThan(bodyBytes / 10);
  }

  @Test
  void shouldEncodeWithoutABaseWhoseRecordIsCorruptAndCountIt() {
    // Given: a session of three turns, without the cache
    List<byte[]> run = LookupInputs.airlineRuns(1).get(0);
    String session = String.format("%032x", 7);
    try (Run app = new Run(corruptDir, Map.of("PREFIXLOG_BASE_CACHE_BYTES", "0"))) {
      for (int turn = 0; turn < 3; turn++) {
        app.raw.pipeInput(session, event(session, turn, run.get(turn)), T0);
      }
      KeyValueStore<String, byte[]> states = app.driver.getKeyValueStore(SessionStores.STATE);
      SessionState state = SessionStateCodec.decode(states.get(session));
      KeyValueStore<String, byte[]> bases = app.driver.getKeyValueStore(SessionStores.BASES);
      // When: the newest base's record is damaged, then the next turn arrives
      String newest = SessionStores.baseKey(session, state.chain(), state.nextSeq() - 1);
      assertThat(bases.get(newest)).isNotNull();
      bases.put(newest, new byte[] {1, 1, 5, 0, 99, 1});
      app.raw.pipeInput(session, event(session, 3, run.get(3)), T0);

      // Then: the failure is counted (once per read that met it) and the turn is still written
      // (against an older base or whole); its own record is whole, so no later base depends on
      // the damaged one
      assertThat(app.deltas.readKeyValuesToList()).hasSize(4);
      assertThat(app.counter("prefixlog_base_rebuild_failures_total")).isPositive();
      String next = SessionStores.baseKey(session, state.chain(), state.nextSeq());
      assertThat(BaseRecordCodec.decode(bases.get(next)).whole()).isTrue();
    }
  }

  @Test
  void shouldStoreABaseWholeWhenItsLogReachesTheRebuildLimitWhileTheDeltasRunOn() {
    // Given: one session of eight turns, a rebuild limit of 3 and the default keyframe interval
    List<byte[]> run = LookupInputs.airlineRuns(1).get(0).subList(0, 8);
    String session = String.format("%032x", 9);
    try (Run app = new Run(cachedDir, Map.of("PREFIXLOG_BASE_REBUILD_RECORDS", "3"))) {
      // When
      for (int turn = 0; turn < run.size(); turn++) {
        app.raw.pipeInput(session, event(session, turn, run.get(turn)), T0);
      }

      // Then: the bases log is whole at seqs 1, 4 and 7 (a miss reads at most 3 records), while
      // the deltas topic has one keyframe, the first turn
      List<Long> wholeSeqs = new ArrayList<>();
      for (KeyValue<String, byte[]> record : app.basesChangelog.readKeyValuesToList()) {
        if (record.value != null && BaseRecordCodec.decode(record.value).whole()) {
          wholeSeqs.add(Long.parseLong(record.key.substring(record.key.lastIndexOf('/') + 1)));
        }
      }
      assertThat(wholeSeqs).containsExactly(1L, 4L, 7L);
      long keyframes =
          app.deltas.readValuesToList().stream()
              .map(v -> JsonSerde.of(DeltaRecord.class).fromBytes(v))
              .filter(DeltaRecord::isKeyframe)
              .count();
      assertThat(keyframes).isEqualTo(1);
    }
  }

  private static byte[] event(String session, int turn, byte[] body) {
    return LookupInputs.bytes(
        LookupInputs.event(
            "req-" + session + "-" + turn, T0 + turn, session, "gpt-4o", body, null));
  }
}
