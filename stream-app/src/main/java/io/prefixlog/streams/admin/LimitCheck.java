package io.prefixlog.streams.admin;

import io.prefixlog.streams.StreamAppConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Checks at start that the broker and the existing topics take the largest record the app writes
 * ({@link StreamAppConfig#maxRecordBytes()}). Without it a limit set lower (a topic created by hand
 * or by another tool, a broker left at Kafka's 1 MiB default) showed only later, as a record that
 * failed the task, again on every replacement thread.
 *
 * <p>Checked: each broker's {@code message.max.bytes} (the limit of every topic without one of its
 * own) and, for each of the app's topics ({@link TopicCreator#plan}) that exists, its {@code
 * max.message.bytes} and {@code segment.bytes} (a batch larger than a segment is refused too).
 *
 * <p>Not checked: the internal topics (changelogs and repartition topics). Kafka Streams creates
 * them with the app's {@code max.message.bytes} (the {@code topic.} settings of {@code
 * StreamApp.streamsProperties} and each store's changelog settings) and never alters one that
 * exists, so an internal topic left by an earlier deployment with a lower limit shows only when a
 * record fails on it.
 */
public final class LimitCheck {
  static final String BROKER_LIMIT = "message.max.bytes";

  private LimitCheck() {}

  /**
   * Fails when a limit is too small, naming each one.
   *
   * @throws IllegalStateException when a limit is below what the app needs, or the broker cannot be
   *     asked within {@code timeout}
   */
  public static void requireLimits(Admin admin, StreamAppConfig config, Duration timeout)
      throws InterruptedException {
    try {
      long ms = timeout.toMillis();
      Collection<Node> nodes = admin.describeCluster().nodes().get(ms, TimeUnit.MILLISECONDS);
      List<String> planned = TopicCreator.plan(config).stream().map(NewTopic::name).toList();
      List<ConfigResource> topics = DescribedConfigs.existingTopics(admin, planned, ms);
      List<ConfigResource> resources = new ArrayList<>();
      for (Node node : nodes) {
        resources.add(new ConfigResource(ConfigResource.Type.BROKER, node.idString()));
      }
      resources.addAll(topics);
      Map<ConfigResource, Config> described = DescribedConfigs.describe(admin, resources, ms);
      Map<String, Long> limits = new LinkedHashMap<>();
      for (ConfigResource resource : resources) {
        Config settings = described.get(resource);
        if (resource.type() == ConfigResource.Type.BROKER) {
          put(limits, "broker " + resource.name() + " " + BROKER_LIMIT, settings, BROKER_LIMIT);
        } else {
          String prefix = "topic " + resource.name() + " ";
          put(
              limits,
              prefix + TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
              settings,
              TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
          put(
              limits,
              prefix + TopicConfig.SEGMENT_BYTES_CONFIG,
              settings,
              TopicConfig.SEGMENT_BYTES_CONFIG);
        }
      }
      List<String> shortfalls = shortfalls(limits, config.maxRecordBytes());
      if (!shortfalls.isEmpty()) {
        throw new IllegalStateException(message(shortfalls, config));
      }
    } catch (ExecutionException | TimeoutException e) {
      throw AdminFailure.cannot(
          "read the size limits of the broker and topics", config.bootstrapServers(), timeout, e);
    }
  }

  /** Each limit below {@code required}, as {@code "<what>=<value>"}, in the order given. */
  static List<String> shortfalls(Map<String, Long> limits, long required) {
    List<String> low = new ArrayList<>();
    limits.forEach(
        (what, value) -> {
          if (value < required) {
            low.add(what + "=" + value);
          }
        });
    return List.copyOf(low);
  }

  static String message(List<String> shortfalls, StreamAppConfig config) {
    return "Kafka size limits below the "
        + config.maxRecordBytes()
        + " bytes a record may take with PREFIXLOG_MAX_BODY_BYTES="
        + config.maxBodyBytes()
        + " (2 x body + 1 MiB): "
        + String.join(", ", shortfalls)
        + ". Raise them (kafka-configs.sh --alter; the broker's message.max.bytes in its"
        + " server.properties) or lower PREFIXLOG_MAX_BODY_BYTES.";
  }

  private static void put(Map<String, Long> limits, String what, Config settings, String name) {
    ConfigEntry entry = settings == null ? null : settings.get(name);
    if (entry != null && entry.value() != null) {
      limits.put(what, Long.parseLong(entry.value().trim()));
    }
  }
}
