package io.prefixlog.tools;

import static org.awaitility.Awaitility.await;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A stream app in the tools' integration tests: its settings, and what the tests wait for around
 * it, each with a deadline and a name.
 */
public final class StreamApps {
  private StreamApps() {}

  /**
   * The settings of a stream app on {@code bootstrap}, its topics named {@code <topicPrefix>…}, its
   * state in {@code stateDir}, without a metrics endpoint: a map the test may add to.
   */
  public static Map<String, String> settings(
      String bootstrap, String topicPrefix, String applicationId, Path stateDir) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_TOPIC_PREFIX", topicPrefix);
    settings.put("PREFIXLOG_APPLICATION_ID", applicationId);
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    return settings;
  }

  /**
   * Starts {@code app} and waits until it is RUNNING (its topics created, its tasks assigned),
   * within 90 s.
   */
  public static void start(StreamApp app) throws InterruptedException, IOException {
    app.start();
    await()
        .alias("stream app RUNNING")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(app::state, state -> state == KafkaStreams.State.RUNNING);
  }

  /** Until {@code topic} holds at least {@code count} committed records, within {@code atMost}. */
  public static void committed(KafkaCluster kafka, String topic, int count, Duration atMost) {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.seekToBeginning(TopicScan.assignAll(consumer, topic));
      int[] seen = {0};
      await()
          .alias(topic + " has " + count + " committed records")
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(1))
          .until(() -> seen[0] += consumer.poll(Duration.ofMillis(500)).count(), n -> n >= count);
    }
  }

  /**
   * A topic's compacted view (the latest value of each live key), values as text, so that views
   * compare by content.
   */
  public static Map<String, String> compactedText(KafkaCluster kafka, String topic, String clientId)
      throws Exception {
    Map<String, String> view = new TreeMap<>();
    CompactedView.read(kafka.bootstrapServers(), topic, clientId)
        .forEach((k, v) -> view.put(k, new String(v, StandardCharsets.UTF_8)));
    return view;
  }
}
