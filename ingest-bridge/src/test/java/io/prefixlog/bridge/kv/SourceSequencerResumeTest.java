package io.prefixlog.bridge.kv;

import static io.prefixlog.bridge.kv.Frames.endWithTopic;
import static io.prefixlog.bridge.kv.Frames.live;
import static io.prefixlog.bridge.kv.Frames.replyWithTopic;
import static io.prefixlog.bridge.kv.Frames.storedBatch;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.bridge.kv.SourceSequencerTest.RecordingSink;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Resuming and catching up: a bridge that restarts continues from what {@code kv.events} holds, a
 * source seen for the first time or reconnected asks the engine's replay for what it missed, and an
 * engine restart is told apart from a continuation by the engine time of the last batch published.
 * The replay endpoint is a {@link FakeEngine}: a bounded buffer answering as vLLM's ROUTER does
 * (every buffered batch from the requested number on, then the end marker).
 */
class SourceSequencerResumeTest {
  private static final String TOPIC = "kv";
  private static final KvSource SOURCE = KvSource.of("tcp://10.0.3.17:5557", 0, TOPIC);

  private final RecordingSink sink = new RecordingSink();
  private final KvBridgeMetrics metrics = new KvBridgeMetrics(new SimpleMeterRegistry());
  private final FakeEngine engine = new FakeEngine(64);

  @Test
  void shouldResumeAfterTheLastPublishedBatchWithoutAMarker() {
    // Given: kv.events ends with batch 5 of the engine's run; the engine went on to 8 meanwhile
    engine.publish(9);
    SourceSequencer sequencer = sequencer(engine);
    sequencer.resume(new ResumePoint(6, 5, engine.ts(5)));

    // When: the bridge connects, then the live stream goes on (8 came through the SUB as well)
    sequencer.onConnected();
    sequencer.onMessage(engine.live(8));
    sequencer.onMessage(engine.publishLive());

    // Then: checked against batch 5, then only what followed, each once
    assertThat(engine.requests).containsExactly(5L);
    assertThat(sink.log()).containsExactly("batch 6", "batch 7", "batch 8", "batch 9");
    assertThat(counter(KvBridgeMetrics.GAPS)).isZero();
    assertThat(counter(KvBridgeMetrics.RESTARTS)).isZero();
    assertThat(counter(KvBridgeMetrics.DUPLICATES)).isEqualTo(2); // replayed 5, live 8
  }

  @Test
  void shouldMarkOnResumeOnlyWhatTheReplayNoLongerHolds() {
    // Given: the engine buffers 4 batches and went on to 12; kv.events ends with batch 5
    FakeEngine small = new FakeEngine(4);
    small.publish(13);
    SourceSequencer sequencer = sequencer(small);
    sequencer.resume(new ResumePoint(6, 5, small.ts(5)));

    // When
    sequencer.onConnected();

    // Then
    assertThat(sink.log())
        .containsExactly("gap 6..8 @9", "batch 9", "batch 10", "batch 11", "batch 12");
    assertThat(counter(KvBridgeMetrics.MISSING)).isEqualTo(3);
    assertThat(counter(KvBridgeMetrics.RESTARTS)).isZero();
  }

  @Test
  void shouldContinueAfterTheGapMarkersThatFollowTheLastBatch() {
    // Given: kv.events ends with batch 5 and then a gap marker for 6..7 (the engine buffered 8 on)
    engine.publish(10);
    SourceSequencer sequencer = sequencer(engine);
    sequencer.resume(new ResumePoint(8, 5, engine.ts(5)));

    // When
    sequencer.onConnected();

    // Then: 6 and 7 stay covered by the marker already published
    assertThat(sink.log()).containsExactly("batch 8", "batch 9");
  }

  @Test
  void shouldDetectAnEngineRestartWhoseSequenceIsAlreadyAboveTheLastPublished() {
    // Given: kv.events ends with batch 5 of the old run; the engine restarted and is at 8
    engine.publish(6);
    double oldTs = engine.ts(5);
    engine.restart();
    engine.publish(9);
    SourceSequencer sequencer = sequencer(engine);
    sequencer.resume(new ResumePoint(6, 5, oldTs));

    // When
    sequencer.onConnected();

    // Then: batch 5 is another batch now: a restart, then the new run from 0
    assertThat(engine.requests).containsExactly(5L, 0L);
    assertThat(sink.log())
        .containsExactly(
            "restart @5",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "batch 4",
            "batch 5",
            "batch 6",
            "batch 7",
            "batch 8");
    assertThat(sink.records.get(1).engineTs()).isEqualTo(engine.ts(0));
    assertThat(counter(KvBridgeMetrics.RESTARTS)).isEqualTo(1);
    assertThat(counter(KvBridgeMetrics.GAPS)).isZero();
  }

  @Test
  void shouldDetectAnEngineRestartThatIsBelowTheLastPublished() {
    // Given: kv.events ends with batch 5; the restarted engine has published 0..2
    engine.publish(6);
    double oldTs = engine.ts(5);
    engine.restart();
    engine.publish(3);
    SourceSequencer sequencer = sequencer(engine);
    sequencer.resume(new ResumePoint(6, 5, oldTs));

    // When
    sequencer.onConnected();

    // Then: nothing at or after 5 is buffered, so the sequence went back
    assertThat(engine.requests).containsExactly(5L, 0L);
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "batch 1", "batch 2");
  }

  @Test
  void shouldAskASourceSeenForTheFirstTimeForEverythingTheEngineBuffers() {
    // Given: the engine published 0..3 before the bridge subscribed (its PUB dropped them)
    engine.publish(4);
    SourceSequencer sequencer = sequencer(engine);

    // When
    sequencer.onConnected();
    sequencer.onMessage(engine.live(3)); // the SUB got 3 too
    sequencer.onMessage(engine.publishLive());

    // Then: the run is seen from 0: a restart marker clears whatever an index held before
    assertThat(engine.requests).containsExactly(0L);
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "batch 1", "batch 2", "batch 3", "batch 4");
    assertThat(counter(KvBridgeMetrics.DUPLICATES)).isEqualTo(1);
  }

  @Test
  void shouldMarkWhatAFirstSeenEngineNoLongerBuffersAsAGap() {
    // Given: the engine buffers 3 batches and is at 6
    FakeEngine small = new FakeEngine(3);
    small.publish(7);
    SourceSequencer sequencer = sequencer(small);

    // When
    sequencer.onConnected();

    // Then
    assertThat(sink.log()).containsExactly("gap 0..3 @4", "batch 4", "batch 5", "batch 6");
  }

  @Test
  void shouldCatchUpOnReconnectWithoutAMarker() {
    // Given: the bridge had 0..2 live, then the connection dropped while the engine went on
    SourceSequencer sequencer = sequencer(engine);
    sequencer.onConnected();
    for (int i = 0; i < 3; i++) {
      sequencer.onMessage(engine.publishLive());
    }
    engine.publish(6);

    // When
    sequencer.onConnected();

    // Then
    assertThat(engine.requests).containsExactly(0L, 2L);
    assertThat(sink.log())
        .containsExactly(
            "restart @0", "batch 0", "batch 1", "batch 2", "batch 3", "batch 4", "batch 5");
  }

  @Test
  void shouldDetectALiveEngineRestartWhoseFirstSeqIsAboveTheOldOne() {
    // Given: live 0..3 of the first run
    SourceSequencer sequencer = sequencer(engine);
    for (int i = 0; i < 4; i++) {
      sequencer.onMessage(engine.publishLive());
    }

    // When: the engine restarted and published 0..9 before the bridge heard of it; 10 is live
    engine.restart();
    engine.publish(10);
    sequencer.onMessage(engine.publishLive());

    // Then: the replay from 3 answers with another batch 3: a restart, the new run from 0
    assertThat(sink.log())
        .containsExactly(
            "restart @0",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "restart @3",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "batch 4",
            "batch 5",
            "batch 6",
            "batch 7",
            "batch 8",
            "batch 9",
            "batch 10");
    assertThat(sink.records.get(6).engineTs()).isEqualTo(engine.ts(0));
    assertThat(counter(KvBridgeMetrics.RESTARTS)).isEqualTo(2);
    assertThat(counter(KvBridgeMetrics.GAPS)).isZero();
  }

  @Test
  void shouldTellALiveCopyOfAReplayedBatchFromARestart() {
    // Given: a resume that replayed 6..9
    engine.publish(10);
    SourceSequencer sequencer = sequencer(engine);
    sequencer.resume(new ResumePoint(6, 5, engine.ts(5)));
    sequencer.onConnected();

    // When: 8 arrives live late (queued before the replay), then the engine restarts: 0 is live
    sequencer.onMessage(engine.live(8));
    engine.restart();
    sequencer.onMessage(engine.publishLive());

    // Then
    assertThat(sink.log())
        .containsExactly("batch 6", "batch 7", "batch 8", "batch 9", "restart @0", "batch 0");
    assertThat(counter(KvBridgeMetrics.DUPLICATES)).isEqualTo(2); // replayed 5, live 8
  }

  @Test
  void shouldResumeWithoutAReplayEndpointFromTheNextLiveSeq() {
    // Given
    SourceSequencer sequencer = sequencer(null);
    sequencer.resume(new ResumePoint(6, 5, engine.ts(5)));

    // When: 6 continues; then 9 skips two; then the sequence goes back
    sequencer.onConnected();
    sequencer.onMessage(live(TOPIC, 6, storedBatch(6)));
    sequencer.onMessage(live(TOPIC, 9, storedBatch(9)));
    sequencer.onMessage(live(TOPIC, 2, storedBatch(2)));

    // Then
    assertThat(sink.log())
        .containsExactly(
            "batch 6", "gap 7..8 @9", "batch 9", "restart @2", "gap 0..1 @2", "batch 2");
  }

  // ---------------------------------------------------------------------------------------------

  private SourceSequencer sequencer(ReplayClient replay) {
    return new SourceSequencer(SOURCE, replay, sink, metrics, () -> 1_700_000_000_000L);
  }

  private long counter(String name) {
    return Meters.count(metrics.registry(), name);
  }

  /**
   * An engine's publisher as the bridge sees it: sequence numbers from 0 per run, a batch's engine
   * time from its run and number (a restarted run's batches are later), and a ROUTER that answers a
   * replay request with every buffered batch from the requested number on, then the end marker.
   */
  static final class FakeEngine implements ReplayClient {
    final List<Long> requests = new ArrayList<>();
    private final int capacity;
    private final List<Long> buffer = new ArrayList<>();
    private int run;
    private long seq;

    FakeEngine(int capacity) {
      this.capacity = capacity;
    }

    /** Engine time of batch {@code s} of the current run. */
    double ts(long s) {
      return 1_750_000_000.0 + run * 3_600.0 + s * 0.25;
    }

    /** Publishes until {@code upTo} batches exist in this run; nobody is subscribed. */
    void publish(long upTo) {
      while (seq < upTo) {
        buffer.add(seq++);
        if (buffer.size() > capacity) {
          buffer.remove(0);
        }
      }
    }

    /** Publishes the next batch and returns it as the SUB receives it. */
    List<byte[]> publishLive() {
      publish(seq + 1);
      return live(seq - 1);
    }

    /** Batch {@code s} of the current run as a live message. */
    List<byte[]> live(long s) {
      return Frames.live(TOPIC, s, storedBatch(run * 1_000L + s, ts(s)));
    }

    void restart() {
      run++;
      seq = 0;
      buffer.clear();
    }

    @Override
    public boolean replay(long fromSeq, Predicate<List<byte[]>> handler) {
      requests.add(fromSeq);
      for (long s : List.copyOf(buffer)) {
        if (s >= fromSeq
            && !handler.test(replyWithTopic(TOPIC, s, storedBatch(run * 1_000L + s, ts(s))))) {
          return true;
        }
      }
      handler.test(endWithTopic());
      return true;
    }
  }
}
