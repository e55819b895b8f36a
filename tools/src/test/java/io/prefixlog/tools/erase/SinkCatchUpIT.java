package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.control.ControlHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SinkCatchUp}'s two steps against a real broker, with the sink's two consumer groups
 * committed by hand where the Iceberg sink would commit them.
 */
@ExtendWith(KafkaExtension.class)
class SinkCatchUpIT {
  private static final String PREFIX = "sink-catch-up-it.";
  private static final String ERASED = "0123456789abcdef0123456789abcdef";
  private static final String KEPT = "fedcba9876543210fedcba9876543210";

  @Test
  void shouldWaitForTheSessionsRecordsThenForTheCommitAndPassOverWhatTheSinkDrops(
      KafkaCluster kafka) throws Exception {
    // Given: the deltas topic holds A, B, A, then A's tombstone and an order (both dropped by the
    // sink); the control topic two events
    ArchivedTopic deltas = ArchivedTopic.deltas(PREFIX);
    String group = "connect-" + deltas.connector();
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(deltas.topic(), 1, (short) 1),
                  new NewTopic(deltas.controlTopic(), 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            kafka.clientConfig(), new StringSerializer(), new ByteArraySerializer())) {
      producer.send(record(deltas.topic(), ERASED + "/c/1", "a1")).get();
      producer.send(record(deltas.topic(), KEPT + "/c/1", "b1")).get();
      producer.send(record(deltas.topic(), ERASED + "/c/2", "a2")).get();
      producer.send(record(deltas.topic(), ERASED + "/c/1", null)).get();
      producer
          .send(
              new ProducerRecord<>(
                  deltas.topic(),
                  0,
                  ERASED,
                  bytes("order"),
                  ControlHeaders.markErase(new RecordHeaders())))
          .get();
      producer.send(record(deltas.controlTopic(), "coordinator", "event-1")).get();
      producer.send(record(deltas.controlTopic(), "worker", "event-2")).get();
    }
    Selection selection = Selection.of(Map.of(ERASED, "--session " + ERASED), Set.of(), null);

    try (Admin admin = Admin.create(kafka.clientConfig())) {
      SinkCatchUp catchUp =
          SinkCatchUp.from(admin, kafka.bootstrapServers(), List.of(deltas), selection);
      List<String> progress = new ArrayList<>();

      // When: the sink has read nothing
      SinkCatchUp.Outcome outcome = catchUp.await(Duration.ofSeconds(2), true, progress::add);

      // Then: both of A's records are behind
      assertThat(outcome.caughtUp()).isFalse();
      assertThat(outcome.behind())
          .containsExactly(
              "sink behind: "
                  + deltas.topic()
                  + ": 2 record(s) of these sessions not yet read by the archive's sink (consumer"
                  + " group "
                  + group
                  + ", which has no offsets: is the archive's Connect running?)");

      // When: it has read up to A's second record, not the tombstone and the order after it
      commit(kafka, group, deltas.topic(), 3);
      outcome = catchUp.await(Duration.ofSeconds(2), true, progress::add);

      // Then: the records are read; the commit to the table is what it waits for
      assertThat(outcome.caughtUp()).isFalse();
      assertThat(outcome.behind())
          .containsExactly(
              "sink behind: "
                  + deltas.topic()
                  + ": the sink has read these sessions' records, its commit to "
                  + deltas.table()
                  + " is pending (consumer group "
                  + group
                  + "-coord, which has no offsets: is the archive's Connect running?)");

      // When: the coordinator has committed the control topic to its end
      commit(kafka, group + "-coord", deltas.controlTopic(), 2);

      // Then
      outcome = catchUp.await(Duration.ofSeconds(2), true, progress::add);
      assertThat(outcome.caughtUp()).isTrue();
      assertThat(outcome.behind()).isEmpty();
    }
  }

  private static ProducerRecord<String, byte[]> record(String topic, String key, String value) {
    return new ProducerRecord<>(topic, 0, key, value == null ? null : bytes(value));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Commits {@code offset} on partition 0 of {@code topic} for {@code group}, as its sink would.
   */
  private static void commit(KafkaCluster kafka, String group, String topic, long offset) {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset)));
    }
  }
}
