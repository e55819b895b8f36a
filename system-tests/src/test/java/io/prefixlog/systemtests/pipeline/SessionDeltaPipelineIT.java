package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of issue "session-delta pipeline" on a real broker: every agentic conversation of
 * the bundled corpora and more than 2,000 chat turns, replayed with sessions interleaved, come out
 * as exactly one delta per raw event, and every body rebuilds byte for byte from the deltas topic
 * alone — also when the stream app is SIGKILLed mid-run and a new instance restores its state from
 * the changelogs.
 */
@ExtendWith(KafkaExtension.class)
class SessionDeltaPipelineIT {
  private static final int HELPFUL_CONVERSATIONS = 850;
  private static final int PARTITIONS = 4;

  @TempDir Path dir;

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void shouldRebuildEveryTurnByteForByteWithExactlyOneDeltaPerRawEvent(KafkaCluster kafka)
      throws Exception {
    // Given
    String prefix = "pipeline.";
    Map<String, String> settings =
        Pipeline.settings(kafka, prefix, "pipeline-app", dir.resolve("state"), PARTITIONS);
    assertThat(HELPFUL_CONVERSATIONS).isGreaterThanOrEqualTo(Pipeline.allAgenticConversations());
    // All 2,684 agentic turns and more than 2,000 chat turns.
    assertThat(Pipeline.expectedEvents(HELPFUL_CONVERSATIONS)).isGreaterThan(2684 + 2000);
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings))) {
      app.start();
      awaitRunning(app);

      // When
      Pipeline.replay(kafka, prefix, HELPFUL_CONVERSATIONS);

      // Then
      Pipeline.assertExactlyOnceAndLossless(
          kafka, prefix, Pipeline.expectedEvents(HELPFUL_CONVERSATIONS));
      assertThat(Meters.count(app.metrics().registry(), "prefixlog_dead_letters_total")).isZero();
    }
  }

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void shouldLoseNoDeltaAndDuplicateNoneWhenTheStreamAppIsKilledMidRun(KafkaCluster kafka)
      throws Exception {
    // Given: the raw topic holds the whole replay before the app starts
    String prefix = "killed.";
    long events = Pipeline.expectedEvents(HELPFUL_CONVERSATIONS);
    Pipeline.createTopics(
        kafka, Pipeline.settings(kafka, prefix, "unused", Path.of("unused"), PARTITIONS));
    Pipeline.replay(kafka, prefix, HELPFUL_CONVERSATIONS);

    // When: SIGKILL the app once it has committed about a third of the deltas, then start a new
    // instance with an empty state directory, which restores the stores from their changelogs
    try (ChildProcess first =
        Pipeline.streamApp(
            dir,
            Pipeline.settings(kafka, prefix, "killed-app", dir.resolve("state-first"), PARTITIONS),
            "first")) {
      Pipeline.awaitCommitted(kafka, prefix + "session.deltas", events / 3, first);
      ProcessHandle.of(first.pid()).orElseThrow().destroyForcibly();
      assertThat(first.waitFor(Duration.ofSeconds(30))).hasValue(137);
    }
    long committedAtKill = Topics.countNow(kafka.bootstrapServers(), prefix + "session.deltas");
    try (ChildProcess second =
        Pipeline.streamApp(
            dir,
            Pipeline.settings(kafka, prefix, "killed-app", dir.resolve("state-second"), PARTITIONS),
            "second")) {

      // Then
      assertThat(committedAtKill).isBetween(1L, events - 1);
      Pipeline.assertExactlyOnceAndLossless(kafka, prefix, events);
      assertThat(second.isAlive()).as("second instance log:\n%s", second.logTail(40)).isTrue();
    }
  }

  private static void awaitRunning(StreamApp app) {
    await()
        .alias("stream app RUNNING")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(app::state, state -> state == KafkaStreams.State.RUNNING);
  }
}
