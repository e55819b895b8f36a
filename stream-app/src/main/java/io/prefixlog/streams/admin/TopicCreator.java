package io.prefixlog.streams.admin;

import io.prefixlog.schemas.Topic;
import io.prefixlog.schemas.Topic.CleanupPolicy;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamAppConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics the stream app reads and writes when they are absent, with their settings:
 * cleanup policy, retention, a message size limit that fits the capture limit, and for the topics
 * it writes, the zstd level the broker stores them at ({@link TopicCompression}). Existing topics
 * are left as they are (an operator may have tuned them), but for one thing: a topic the app writes
 * whose {@code compression.type} is still the broker's default ({@code producer}) gets the app's,
 * since its producer writes lz4, which such a topic would keep (created by a build before the
 * split, or by hand).
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
      Duration retention = retentionOf(topic, config);
      if (retention != null) {
        settings.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
      }
      if (topic.cleanupPolicy() != CleanupPolicy.DELETE) {
        // Bounds how long a replaced or erased value stays on the broker (see StreamAppConfig).
        settings.put(
            TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG,
            Long.toString(config.maxCompactionLag().toMillis()));
      }
      settings.putAll(compressionOf(topic, config));
      plan.add(
          new NewTopic(topic.name(), config.partitions(), config.replicationFactor())
              .configs(settings));
    }
    return plan;
  }

  /**
   * How the broker stores a topic ({@link Topic#compression}): the inputs as their producers wrote
   * them, the light ones at zstd 3, the rest of what the app writes at {@code
   * PREFIXLOG_OUTPUT_ZSTD_LEVEL}.
   */
  static Map<String, String> compressionOf(Topic<?, ?> topic, StreamAppConfig config) {
    return switch (topic.compression()) {
      case AS_PRODUCED -> Map.of();
      case LIGHT_ZSTD -> TopicCompression.zstd(TopicCompression.LIGHT_ZSTD_LEVEL);
      case OUTPUT_ZSTD -> TopicCompression.zstd(config.outputZstdLevel());
    };
  }

  private static Duration retentionOf(Topic<?, ?> topic, StreamAppConfig config) {
    return switch (topic.role()) {
      case STATE -> null; // compacted state: kept until a tombstone removes it
      case INPUT -> config.rawRetention();
      case TURN_KEYED, LOG -> config.outputRetention();
    };
  }

  /**
   * Gives the existing topics the app writes (its outputs and its changelogs, {@code <application
   * id>-*-changelog}) the compression of {@link #plan} where theirs is the broker's default, {@code
   * producer}: an operator's explicit choice is kept.
   */
  private static void compressExisting(
      Admin admin,
      List<NewTopic> plan,
      Set<String> existing,
      StreamAppConfig config,
      Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, Map<String, String>> wanted = new HashMap<>();
    for (NewTopic topic : plan) {
      Map<String, String> settings = topic.configs();
      if (existing.contains(topic.name())
          && settings.containsKey(TopicConfig.COMPRESSION_TYPE_CONFIG)) {
        // The compression settings only: the rest of an existing topic is the operator's.
        wanted.put(
            topic.name(),
            Map.of(
                TopicConfig.COMPRESSION_TYPE_CONFIG,
                settings.get(TopicConfig.COMPRESSION_TYPE_CONFIG),
                TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG,
                settings.get(TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG)));
      }
    }
    String changelogPrefix = config.applicationId() + "-";
    for (String name : existing) {
      if (name.startsWith(changelogPrefix) && name.endsWith("-changelog")) {
        wanted.put(name, TopicCompression.zstd(TopicCompression.LIGHT_ZSTD_LEVEL));
      }
    }
    if (wanted.isEmpty()) {
      return;
    }
    List<ConfigResource> resources =
        wanted.keySet().stream()
            .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n))
            .toList();
    Map<ConfigResource, Config> current =
        admin.describeConfigs(resources).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    Map<ConfigResource, Collection<AlterConfigOp>> changes = new HashMap<>();
    for (Map.Entry<ConfigResource, Config> e : current.entrySet()) {
      ConfigEntry codec = e.getValue().get(TopicConfig.COMPRESSION_TYPE_CONFIG);
      boolean untuned =
          codec == null
              || (codec.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                  && "producer".equals(codec.value()));
      if (!untuned) {
        continue;
      }
      List<AlterConfigOp> ops = new ArrayList<>();
      wanted
          .get(e.getKey().name())
          .forEach(
              (k, v) ->
                  ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
      changes.put(e.getKey(), ops);
    }
    if (changes.isEmpty()) {
      return;
    }
    admin.incrementalAlterConfigs(changes).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    changes
        .keySet()
        .forEach(
            r ->
                LOGGER
                    .atInfo()
                    .setMessage("topic compression set: the app writes lz4, the broker stores zstd")
                    .addKeyValue("topic", r.name())
                    .addKeyValue("settings", wanted.get(r.name()))
                    .log());
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
      List<NewTopic> plan = plan(config);
      compressExisting(admin, plan, existing, config, timeout);
      List<NewTopic> missing = plan.stream().filter(t -> !existing.contains(t.name())).toList();
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
      throw AdminFailure.cannot("create the topics", config.bootstrapServers(), timeout, e);
    }
  }
}
