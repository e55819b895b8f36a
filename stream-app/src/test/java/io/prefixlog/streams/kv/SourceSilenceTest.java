package io.prefixlog.streams.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * The silence of the sources of a task: kept across a restart without ever expiring early, and
 * found in a store a build without these times kept, in bounded steps.
 */
class SourceSilenceTest {
  private static final String A = "tcp://10.0.0.1:5557|dp0|kv";
  private static final String B = "tcp://10.0.0.2:5557|dp0|kv";
  private static final String B_LONGER = "tcp://10.0.0.2:5557|dp0|kv2";
  private static final long T0 = 1_750_000_000_000L;
  private static final Duration EXPIRY = Duration.ofHours(1);
  private static final byte[] ANY = {1};

  @Test
  void shouldDiscoverTheSourcesOfAnOlderStoreInStepsAndCountTheirSilenceFromThen() {
    // Given: a store an older build kept: blocks of three sources, a clear job and a clear's
    // mark, and no times
    KeyValueStore<String, byte[]> store = store();
    for (String hash : new String[] {"0a", "0b", "ff"}) {
      store.put(A + "/" + hash, ANY);
    }
    store.put(A + "/~new/2/0c", new byte[0]);
    store.put(B + "/01", ANY);
    store.put(B_LONGER + "/02", ANY);
    store.put(ClearJob.key(A), ANY);
    SourceSilence silence = new SourceSilence(store, EXPIRY);

    // When: the discovery has no stream time yet, then goes in steps of two keys
    int before = silence.discover(2, -1);
    int steps = 0;
    int read = 0;
    while (silence.discovering()) {
      read += silence.discover(2, T0);
      steps++;
    }

    // Then: it waited for a stream time, read the six keys before `~` once, in three steps
    assertThat(before).isZero();
    assertThat(read).isEqualTo(6);
    assertThat(steps).isEqualTo(3);
    // and each source found is silent from then on: due after the expiry, not at it
    long due = T0 + EXPIRY.toMillis();
    assertThat(silence.due(due)).isEmpty();
    assertThat(silence.due(due + 1))
        .extracting(SourceSilence.Silent::source)
        .containsExactly(A, B, B_LONGER);
    // and a task that starts on that store again neither discovers again nor forgets them
    SourceSilence restarted = new SourceSilence(store, EXPIRY);
    assertThat(restarted.discovering()).isFalse();
    assertThat(restarted.discover(100, due)).isZero();
    assertThat(restarted.due(due + Duration.ofMinutes(1).toMillis() + 1))
        .extracting(SourceSilence.Silent::source)
        .containsExactly(A, B, B_LONGER);
  }

  @Test
  void shouldNeverExpireEarlyAfterARestartThoughTimesAreWrittenOnceAMinute() {
    // Given: a source seen at T0 and again 59 s later (not written: within a minute)
    KeyValueStore<String, byte[]> store = store();
    SourceSilence silence = new SourceSilence(store, EXPIRY);
    silence.seen(A, T0);
    silence.seen(A, T0 + 59_000);

    // When: the task starts again on its store
    SourceSilence restarted = new SourceSilence(store, EXPIRY);

    // Then: the source counts as seen a minute after the time written, not earlier
    long lastSent = T0 + 59_000;
    assertThat(restarted.due(lastSent + EXPIRY.toMillis() + 1)).isEmpty();
    assertThat(restarted.due(T0 + 60_000 + EXPIRY.toMillis())).isEmpty();
    assertThat(restarted.due(T0 + 60_000 + EXPIRY.toMillis() + 1))
        .extracting(SourceSilence.Silent::source)
        .containsExactly(A);
    // and once forgotten (expired) it is gone from the store as well
    restarted.forget(A);
    assertThat(new SourceSilence(store, EXPIRY).due(Long.MAX_VALUE)).isEmpty();
  }

  private static KeyValueStore<String, byte[]> store() {
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    KeyValueStore<String, byte[]> store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(BlockIndexSupplier.STORE),
                Serdes.String(),
                Serdes.ByteArray())
            .withLoggingDisabled()
            .build();
    store.init(context.getStateStoreContext(), store);
    return store;
  }
}
