package io.prefixlog.streams.admin;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The stream app refuses to start on topics whose retention lets them grow without bound. */
@ExtendWith(KafkaExtension.class)
class RetentionCheckIT {
  @TempDir Path dir;

  @Test
  void shouldRefuseToStartOnTopicsThatNothingDeletes(KafkaCluster kafka) throws Exception {
    // Given: a deltas topic created by hand compacted only, and a dead-letter topic kept forever;
    // the other topics as the app creates them
    StreamAppConfig config = config(kafka, "rc.", "rc-app");
    StreamAppConfig fine = config(kafka, "rc-ok.", "rc-ok-app");
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("rc.session.deltas", 1, (short) 1)
                      .configs(Map.of("cleanup.policy", "compact")),
                  new NewTopic("rc.dlq", 1, (short) 1).configs(Map.of("retention.ms", "-1"))))
          .all()
          .get();

      // When / Then
      try (StreamApp app = new StreamApp(config)) {
        assertThatThrownBy(app::start)
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(
                "topic retention the app cannot rely on: topic rc.session.deltas"
                    + " cleanup.policy=compact never deletes a record (the app creates it"
                    + " compact,delete: its keys are unique, so compaction alone never shrinks"
                    + " it); topic rc.dlq retention.ms=-1 keeps every record forever. Set them"
                    + " (kafka-configs.sh --alter --entity-type topics --entity-name TOPIC"
                    + " --add-config ...) or the settings named.");
      }
      TopicCreator.createMissing(admin, fine, Duration.ofSeconds(30));
      RetentionCheck.requireRetention(admin, fine, Duration.ofSeconds(30));
    }
  }

  private StreamAppConfig config(KafkaCluster kafka, String prefix, String applicationId) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", prefix);
    settings.put("PREFIXLOG_APPLICATION_ID", applicationId);
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve(applicationId).toString());
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_PARTITIONS", "1");
    return StreamAppConfig.defaults(settings);
  }
}
