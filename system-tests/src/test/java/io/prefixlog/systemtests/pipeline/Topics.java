package io.prefixlog.systemtests.pipeline;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads whole topics back from the broker, committed records only. */
final class Topics {
  private Topics() {}

  /** Every committed record of {@code topic}, waiting until there are at least {@code count}. */
  static List<ConsumerRecord<String, byte[]>> readAtLeast(
      String bootstrap, String topic, long count, Duration timeout) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 40 << 20);
    config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 40 << 20);
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (records.size() < count) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              topic + " has " + records.size() + " of " + count + " records after " + timeout);
        }
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
      // Anything beyond the expected count (a duplicate) must show up too: drain to the end.
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
    }
    return records;
  }

  /** How many committed records {@code topic} holds right now (end offsets minus aborted data). */
  static long countNow(String bootstrap, String topic) {
    return readAtLeast(bootstrap, topic, 0, Duration.ofSeconds(30)).size();
  }
}
