package io.prefixlog.streams.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.delta.BaseInfo;
import io.prefixlog.core.delta.BaseLog;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;

/**
 * A task that starts (after a restore, a failover, a standby promotion) over 100,000 session states
 * indexes them for idle eviction in steps of {@code PREFIXLOG_BULK_BATCH}, one per bulk
 * punctuation, instead of all of them inside its initialisation.
 */
class IdleIndexRebuildTest {
  private static final int SESSIONS = 100_000;
  private static final int LIVE = 40_000;
  private static final int BATCH = 1000;
  private static final long T0 = 1_764_000_000_000L;

  @Test
  void shouldIndexTheSessionsOfAStartingTaskInBoundedStepsAcrossPunctuations() {
    // Given: a task's stores holding 100,000 session states, 40,000 of them with bases, the
    // others dormant; session 0 is idle past the TTL, the rest were just seen
    MeterRegistry registry = new SimpleMeterRegistry();
    StreamAppConfig config =
        StreamAppConfig.defaults(
            Map.of(
                "PREFIXLOG_BULK_BATCH", Integer.toString(BATCH), "PREFIXLOG_SESSION_TTL", "30m"));
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    KeyValueStore<String, byte[]> states = keyValueStore(SessionStores.STATE, context);
    keyValueStore(SessionStores.BASES, context);
    KeyValueStore<String, byte[]> index = keyValueStore(SessionStores.IDLE_INDEX, context);
    WindowStore<String, byte[]> requestIds =
        Stores.windowStoreBuilder(
                Stores.inMemoryWindowStore(
                    SessionStores.REQUEST_IDS, Duration.ofDays(1), Duration.ofMillis(1), false),
                Serdes.String(),
                Serdes.ByteArray())
            .withLoggingDisabled()
            .build();
    requestIds.init(context.getStateStoreContext(), requestIds);
    context.addStateStore(requestIds);
    long now = T0 + Duration.ofHours(1).toMillis();
    for (int i = 0; i < SESSIONS; i++) {
      long lastSeen = i == 0 ? T0 : now;
      states.put(session(i), SessionStateCodec.encode(state(lastSeen, i < LIVE)));
    }
    Processor<String, byte[], Object, Object> processor =
        new SessionDeltaSupplier(
                config, new StreamAppMetrics(registry), "deltas", "dlq", "acks", "metadata", null)
            .get();

    // When: the task starts
    processor.init(context);

    // Then: it indexed at most one step's worth, and says it is indexing
    assertThat(count(index)).isLessThanOrEqualTo(BATCH);
    assertThat(Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "idle_index"))
        .isEqualTo(1.0);

    // When: its bulk punctuator runs, step after step
    MockProcessorContext.CapturedPunctuator bulk =
        context.scheduledPunctuators().stream()
            .filter(p -> p.getType() == PunctuationType.WALL_CLOCK_TIME)
            .filter(p -> p.getInterval().equals(config.bulkInterval()))
            .findFirst()
            .orElseThrow();
    long before = count(index);
    int steps = 0;
    while (Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "idle_index") > 0) {
      bulk.getPunctuator().punctuate(now);
      long after = count(index);
      // Then: each step indexes at most a batch
      assertThat(after - before).isLessThanOrEqualTo(BATCH);
      before = after;
      steps++;
      assertThat(steps).as("steps").isLessThanOrEqualTo(SESSIONS / BATCH + 1);
    }

    // Then: every session indexed once, the live ones counted, every state read once
    assertThat(count(index)).isEqualTo(SESSIONS);
    assertThat(Meters.gaugeValue(registry, "prefixlog_live_sessions")).isEqualTo(LIVE);
    assertThat(Meters.count(registry, "prefixlog_bulk_keys_total", "work", "idle_index"))
        .isEqualTo(SESSIONS);

    // When: stream time passes session 0's TTL
    MockProcessorContext.CapturedPunctuator eviction =
        context.scheduledPunctuators().stream()
            .filter(p -> p.getType() == PunctuationType.STREAM_TIME)
            .findFirst()
            .orElseThrow();
    eviction.getPunctuator().punctuate(now + 1);

    // Then: its bases went (it was live); the others are untouched
    assertThat(SessionStateCodec.decode(states.get(session(0))).bases()).isEmpty();
    assertThat(SessionStateCodec.decode(states.get(session(1))).bases()).hasSize(1);
    assertThat(Meters.gaugeValue(registry, "prefixlog_live_sessions")).isEqualTo(LIVE - 1);
  }

  private static KeyValueStore<String, byte[]> keyValueStore(
      String name, MockProcessorContext<Object, Object> context) {
    KeyValueStore<String, byte[]> store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(name), Serdes.String(), Serdes.ByteArray())
            .withLoggingDisabled()
            .build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    return store;
  }

  private static String session(int i) {
    return String.format("%032x", i);
  }

  private static SessionState state(long lastSeenMs, boolean live) {
    if (!live) {
      return new SessionState("0123abcd", 5, lastSeenMs, List.of(), BaseLog.EMPTY);
    }
    BaseInfo base = new BaseInfo(4, "ab".repeat(32), 1, 100, new long[0]);
    return new SessionState(
        "0123abcd", 5, lastSeenMs, List.of(base), BaseLog.of(List.of(new BaseLog.Entry(4, true))));
  }

  private static long count(KeyValueStore<String, byte[]> store) {
    long n = 0;
    try (KeyValueIterator<String, byte[]> all = store.all()) {
      while (all.hasNext()) {
        all.next();
        n++;
      }
    }
    return n;
  }
}
