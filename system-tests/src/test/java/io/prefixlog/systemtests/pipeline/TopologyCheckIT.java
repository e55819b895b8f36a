package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import io.prefixlog.streams.upgrade.TopologyFingerprint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An instance whose topology differs from the running group's ({@link ExtraNodeStreamApp}: one
 * processor more) is refused before it joins, with both fingerprints in the error, and starts once
 * the group's instance has stopped. Kafka Streams' classic rebalance protocol would have let it
 * join: its subscription does not carry the topology.
 */
@ExtendWith(KafkaExtension.class)
class TopologyCheckIT {
  private static final int STATE_PARTITIONS = 4;

  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void shouldRefuseAnotherTopologyWhileTheGroupRunsAndAcceptItOnceTheGroupHasStopped(
      KafkaCluster kafka) throws Exception {
    // Given: one instance of the app's topology, owning every state partition
    Map<String, String> first = settings(kafka, "tc-a");
    Map<String, String> other = settings(kafka, "tc-b");
    Pipeline.createTopics(kafka, first);
    String running = fingerprint(first, PrefixlogTopology::build);
    String extended = fingerprint(other, ExtraNodeStreamApp::topology);
    assertThat(extended).isNotEqualTo(running);
    ChildProcess app = Pipeline.streamApp(dir, first, "tc-a");
    try (AppGroup group = new AppGroup(kafka, "tc-app", "tc.session.deltas")) {
      group.awaitOwners(Set.of("tc-a"), STATE_PARTITIONS, List.of(app));

      // When: an instance with a node more starts in the same group
      ChildProcess refused =
          Pipeline.streamApp(
              dir,
              other,
              "tc-b-refused",
              ExtraNodeStreamApp.class.getName(),
              System.getProperty("java.class.path"));

      // Then: it exits before joining, naming both topologies and the difference
      assertThat(refused.waitFor(Duration.ofMinutes(2)))
          .as("exit status; log:%n%s", refused.logTail(40))
          .hasValue(1);
      assertThat(Files.readString(refused.logFile(), StandardCharsets.UTF_8))
          .contains(
              "refusing to join the group of application id 'tc-app': member 'tc-a' runs topology "
                  + running
                  + " and this instance has topology "
                  + extended
                  + " (only in this one: processor:"
                  + ExtraNodeStreamApp.EXTRA_NODE
                  + "; only in the member's: none). Kafka Streams would let this instance join");
      assertThat(group.stateOwners()).isEqualTo(Map.of("tc-a", STATE_PARTITIONS));
      assertThat(app.isAlive()).as(app.logTail(40)).isTrue();

      // When: the group's instance stops, and the other topology starts again
      app.close();
      try (ChildProcess accepted =
          Pipeline.streamApp(
              dir,
              other,
              "tc-b-accepted",
              ExtraNodeStreamApp.class.getName(),
              System.getProperty("java.class.path"))) {

        // Then: it joins and takes every state partition
        group.awaitOwners(Set.of("tc-b"), STATE_PARTITIONS, List.of(accepted));
        assertThat(Files.readString(accepted.logFile(), StandardCharsets.UTF_8))
            .doesNotContain("refusing to join");
      }
    } finally {
      app.close();
    }
  }

  private Map<String, String> settings(KafkaCluster kafka, String instance) {
    Map<String, String> settings =
        new HashMap<>(
            Pipeline.settings(
                kafka, "tc.", "tc-app", dir.resolve("state-" + instance), STATE_PARTITIONS));
    settings.put("PREFIXLOG_KAFKA_CLIENT_ID", instance);
    settings.put("PREFIXLOG_KAFKA_SESSION_TIMEOUT_MS", "6000");
    settings.put("PREFIXLOG_KAFKA_HEARTBEAT_INTERVAL_MS", "1500");
    return settings;
  }

  private static String fingerprint(
      Map<String, String> settings,
      BiFunction<StreamAppConfig, StreamAppMetrics, Topology> topology) {
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    return TopologyFingerprint.of(
            topology.apply(config, new StreamAppMetrics(new SimpleMeterRegistry())))
        .fingerprint();
  }
}
