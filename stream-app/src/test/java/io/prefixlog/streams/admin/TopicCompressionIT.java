package io.prefixlog.streams.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamAppConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The broker stores what the app writes in zstd, at the level each topic is planned with. */
@ExtendWith(KafkaExtension.class)
class TopicCompressionIT {
  @Test
  void shouldCreateTheKeptTopicsInZstdAndGiveUntunedExistingOnesTheSame(KafkaCluster kafka)
      throws Exception {
    // Given: a deltas topic and a changelog from a build before the split (the broker's default
    // codec), and a metadata topic an operator set to gzip
    StreamAppConfig config =
        StreamAppConfig.defaults(
            Map.of(
                "PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
                "PREFIXLOG_TOPIC_PREFIX", "tc.",
                "PREFIXLOG_APPLICATION_ID", "tc-app"));
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      String deltas = config.topics().sessionDeltas().name();
      String metadata = config.topics().requestsMetadata().name();
      String changelog = "tc-app-session-bases-changelog";
      admin
          .createTopics(
              List.of(
                  new NewTopic(deltas, 1, (short) 1).configs(Map.of("retention.ms", "3600000")),
                  new NewTopic(changelog, 1, (short) 1),
                  new NewTopic(metadata, 1, (short) 1).configs(Map.of("compression.type", "gzip"))))
          .all()
          .get();

      // When
      TopicCreator.createMissing(admin, config, Duration.ofSeconds(30));

      // Then: zstd 9 for the deltas, 3 for the changelog and the lookups, the operator's gzip
      // kept, and the raw topic as its producers write it
      assertThat(codec(admin, deltas)).isEqualTo("zstd/9");
      assertThat(codec(admin, changelog)).isEqualTo("zstd/3");
      assertThat(codec(admin, metadata)).startsWith("gzip/");
      assertThat(codec(admin, config.topics().chunkLookups().name())).isEqualTo("zstd/3");
      assertThat(codec(admin, config.topics().deadLetters().name())).isEqualTo("zstd/9");
      assertThat(codec(admin, config.topics().requestsRaw().name())).startsWith("producer/");
      // and nothing else of an existing topic changed
      assertThat(setting(admin, deltas, "retention.ms")).isEqualTo("3600000");
    }
  }

  private static String setting(Admin admin, String topic, String name) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return admin.describeConfigs(List.of(resource)).all().get().get(resource).get(name).value();
  }

  private static String codec(Admin admin, String topic) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
    return config.get("compression.type").value()
        + "/"
        + config.get("compression.zstd.level").value();
  }
}
