package io.prefixlog.streams.admin;

import io.prefixlog.schemas.Topic;
import io.prefixlog.schemas.Topic.CleanupPolicy;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamAppConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics the stream app reads and writes when they are absent, with the settings of
 * DESIGN §3: cleanup policy, retention, and a message size limit that fits the capture limit.
 * Existing topics are left as they are (an operator may have tuned them).
 */
public final class TopicCreator {
  private static final Logger LOGGER = LoggerFactory.getLogger(TopicCreator.class);

  private TopicCreator() {}

  /** The topics and their settings for this configuration. */
  public static List<NewTopic> plan(StreamAppConfig config) {
    Topics topics = config.topics();
    List<NewTopic> plan = new ArrayList<>();
    for (Topic<?, ?> topic : topics.all()) {
      Map<String, String> settings = new HashMap<>();
      settings.put(TopicConfig.CLEANUP_POLICY_CONFIG, topic.cleanupPolicy().config());
      settings.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Long.toString(config.maxRecordBytes()));
      Duration retention = retentionOf(topic, topics, config);
      if (retention != null) {
        settings.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
      }
      if (topic.cleanupPolicy() != CleanupPolicy.DELETE) {
        // Bounds how long a replaced or erased value stays on the broker (see StreamAppConfig).
        settings.put(
            TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG,
            Long.toString(config.maxCompactionLag().toMillis()));
      }
      plan.add(
          new NewTopic(topic.name(), config.partitions(), config.replicationFactor())
              .configs(settings));
    }
    return plan;
  }

  private static Duration retentionOf(Topic<?, ?> topic, Topics topics, StreamAppConfig config) {
    if (topic.cleanupPolicy() == CleanupPolicy.COMPACT) {
      return null; // compacted state: kept until a tombstone removes it
    }
    boolean input = topic == topics.requestsRaw() || topic == topics.kvEvents();
    return input ? config.rawRetention() : config.outputRetention();
  }

  /**
   * Creates what is missing and returns the names it created.
   *
   * @throws IllegalStateException when the broker cannot be reached in {@code timeout}
   */
  public static Set<String> createMissing(Admin admin, StreamAppConfig config, Duration timeout)
      throws InterruptedException {
    try {
      Set<String> existing =
          admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      List<NewTopic> missing =
          plan(config).stream().filter(t -> !existing.contains(t.name())).toList();
      if (missing.isEmpty()) {
        return Set.of();
      }
      try {
        admin.createTopics(missing).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        // Another instance created them first: that is fine.
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      missing.forEach(
          t ->
              LOGGER
                  .atInfo()
                  .setMessage("topic created")
                  .addKeyValue("topic", t.name())
                  .addKeyValue("partitions", t.numPartitions())
                  .log());
      return Set.copyOf(missing.stream().map(NewTopic::name).toList());
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot create the topics on "
              + config.bootstrapServers()
              + " within "
              + timeout.toSeconds()
              + " s: "
              + (e.getCause() == null ? e : e.getCause()),
          e);
    }
  }
}
