package io.prefixlog.bridge.proxy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Creates a test topic and reads it back from the beginning, record by record. */
final class TopicReader implements AutoCloseable {
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();

  TopicReader(String bootstrapServers, String topic) {
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                64 << 20,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                64 << 20),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.assign(List.of(new TopicPartition(topic, 0)));
    consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
  }

  static void createTopic(String bootstrapServers, String topic)
      throws InterruptedException, ExecutionException {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 1, (short) 1)
                      .configs(Map.of("max.message.bytes", Integer.toString(20 << 20)))))
          .all()
          .get();
    }
  }

  /** Polls until at least {@code count} records were read in total (or the timeout passes). */
  List<ConsumerRecord<String, byte[]>> await(int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (records.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    return List.copyOf(records);
  }

  /** Reads for a while more, to show that nothing else arrives. */
  List<ConsumerRecord<String, byte[]>> settle(Duration duration) {
    long deadline = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    return List.copyOf(records);
  }

  @Override
  public void close() {
    consumer.close();
  }
}
