package io.prefixlog.tools.erase;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * When the broker will have compacted away the values an erasure tombstoned, per compacted topic: a
 * segment is cleaned once its records are older than the topic's {@code max.compaction.lag.ms} (the
 * broker then rolls and cleans it whatever its dirty ratio). A topic without that bound is cleaned
 * when its dirty ratio and segment rolls say so, which has no deadline: the report says how to set
 * one.
 *
 * @param topic the topic
 * @param maxLag its {@code max.compaction.lag.ms}, or null when unbounded
 * @param by now plus that lag, or null
 */
record CompactionDeadline(String topic, Duration maxLag, Instant by) {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** The deadline of each existing topic among {@code topics}. */
  static List<CompactionDeadline> of(Admin admin, List<String> topics)
      throws InterruptedException, ExecutionException, TimeoutException {
    Instant now = Instant.now();
    Map<ConfigResource, String> resources = new HashMap<>();
    for (String topic : topics) {
      resources.put(new ConfigResource(ConfigResource.Type.TOPIC, topic), topic);
    }
    List<CompactionDeadline> deadlines = new ArrayList<>();
    for (Map.Entry<ConfigResource, org.apache.kafka.common.KafkaFuture<Config>> described :
        admin.describeConfigs(resources.keySet()).values().entrySet()) {
      Config config;
      try {
        config = described.getValue().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          continue; // not created in this deployment (a feature turned off)
        }
        throw e;
      }
      ConfigEntry lag = config.get(TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG);
      long millis =
          lag == null || lag.value() == null ? Long.MAX_VALUE : Long.parseLong(lag.value());
      String topic = resources.get(described.getKey());
      if (millis >= Long.MAX_VALUE / 2) {
        deadlines.add(new CompactionDeadline(topic, null, null));
      } else {
        Duration maxLag = Duration.ofMillis(millis);
        deadlines.add(new CompactionDeadline(topic, maxLag, now.plus(maxLag)));
      }
    }
    deadlines.sort(java.util.Comparator.comparing(CompactionDeadline::topic));
    return deadlines;
  }
}
