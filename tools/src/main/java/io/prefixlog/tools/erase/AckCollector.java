package io.prefixlog.tools.erase;

import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Collects the stream app's acknowledgements of one erase id from {@code erasures}: it is
 * positioned at the topic's end before the orders go out, so that only answers to them are read,
 * and reads committed records only: an acknowledgement is visible once the transaction that made
 * the change it reports has committed.
 */
final class AckCollector implements AutoCloseable {
  private final KafkaConsumer<String, byte[]> consumer;
  private final String eraseId;

  /** Opens at the end of {@code topic}, before any order is sent. */
  AckCollector(String bootstrap, String topic, String eraseId) {
    this.consumer = new KafkaConsumer<>(CommittedReads.config(bootstrap, "prefixlog-erase-acks"));
    this.eraseId = eraseId;
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(i -> new TopicPartition(i.topic(), i.partition()))
            .toList();
    consumer.assign(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
    end.forEach(consumer::seek);
  }

  /**
   * The acknowledgements of this erase id that arrive within {@code timeout}, returning as soon as
   * {@code expected} have.
   */
  List<ErasureAck> await(int expected, Duration timeout) throws IOException {
    List<ErasureAck> acks = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (acks.size() < expected && System.nanoTime() < deadline) {
      for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
        if (eraseId.equals(record.key()) && record.value() != null) {
          acks.add(Json.mapper().readValue(record.value(), ErasureAck.class));
        }
      }
    }
    return acks;
  }

  @Override
  public void close() {
    consumer.close();
  }
}
