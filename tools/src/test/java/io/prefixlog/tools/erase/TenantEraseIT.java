package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.StreamApps;
import io.prefixlog.tools.TenantTraffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prefixlog erase --tenant} on a real broker with the stream app: the bridge's own events
 * ({@link TenantTraffic}) of three sessions of team-a, one of which the engine refused (401, so no
 * body and no delta record, only request metadata), and one of team-b that uses the same session id
 * as one of team-a's. Erasing team-a tombstones the delta and metadata records of its three
 * sessions and leaves team-b's exactly as they were.
 */
@ExtendWith(KafkaExtension.class)
class TenantEraseIT {
  private static final String PREFIX = "tenant-erase.";
  private static final String APP = "tenant-erase-app";
  private static final String SECRET = "tenant-erase-it-session-secret-0123";
  private static final int TURNS = 2;

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldEraseEverySessionOfTheTenantAndNoSessionOfAnother(KafkaCluster kafka)
      throws Exception {
    // Given: team-a's sessions s1 and s2, team-b's s1, each of TURNS kept turns, and team-a's s3
    // of TURNS refused requests
    Topics topics = Topics.withPrefix(PREFIX);
    try (StreamApp app =
        TenantTraffic.startStreamApp(kafka.bootstrapServers(), PREFIX, APP, dir.resolve("state"))) {
      Map<String, Set<String>> sessionsByTeam =
          TenantTraffic.publish(
              kafka.bootstrapServers(),
              topics.requestsRaw().name(),
              SECRET,
              List.of(
                  List.of("team-a", "s1"),
                  List.of("team-a", "s2"),
                  List.of("team-b", "s1"),
                  List.of("team-a", "s3", "401")),
              TURNS);
      String deltas = topics.sessionDeltas().name();
      String metadata = topics.requestsMetadata().name();
      await()
          .alias("a delta record per kept request, a metadata record per request")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  view(kafka, deltas).size() == 3 * TURNS
                      && view(kafka, metadata).size() == 4 * TURNS);
      Map<String, String> before = view(kafka, deltas);
      Map<String, String> metadataBefore = view(kafka, metadata);
      assertThat(sessionsByTeam.get("team-a"))
          .hasSize(3)
          .doesNotContainAnyElementsOf(sessionsByTeam.get("team-b"));

      // When
      int code =
          new EraseCommand(console.terminal(Map.of("PREFIXLOG_SESSION_SECRET", SECRET)))
              .run(
                  new String[] {
                    "--tenant",
                    "team-a",
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    PREFIX,
                    "--application-id",
                    APP
                  });

      // Then: team-a's sessions are gone from the topic, team-b's records are as they were
      String report = console.out();
      assertThat(code).as(report + console.err()).isEqualTo(Command.OK);
      assertThat(report).contains("--tenant team-a: 3 sessions").doesNotContain("failed:");
      Set<String> teamB = sessionsByTeam.get("team-b");
      assertThat(view(kafka, deltas)).isEqualTo(ofSessions(before, teamB)).hasSize(TURNS);
      assertThat(view(kafka, metadata)).isEqualTo(ofSessions(metadataBefore, teamB)).hasSize(TURNS);
      assertThat(app.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }
  }

  /** The records of {@code view} whose key starts with one of {@code sessions}. */
  private static Map<String, String> ofSessions(Map<String, String> view, Set<String> sessions) {
    Map<String, String> kept = new TreeMap<>(view);
    kept.keySet().removeIf(k -> !sessions.contains(k.substring(0, k.indexOf('/'))));
    return kept;
  }

  /** The topic's compacted view, values as text. */
  private static Map<String, String> view(KafkaCluster kafka, String topic) throws Exception {
    return StreamApps.compactedText(kafka, topic, "tenant-erase-it");
  }
}
