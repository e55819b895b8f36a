package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link DeadLetterErasure} on a real broker: the erased sessions' letters leave the topic, every
 * other letter stays with its key, value, timestamp and headers, and a second run changes nothing.
 */
@ExtendWith(KafkaExtension.class)
class DeadLetterErasureIT {
  private static final String ERASED = "0123456789abcdef0123456789abcdef";
  private static final String KEPT = "fedcba9876543210fedcba9876543210";

  @Test
  void shouldDropTheSessionsLettersAndKeepEveryOtherLetterAsItWas(KafkaCluster kafka)
      throws Exception {
    // Given: one partition of letters: kept, erased, kept (by its input's value only: a null
    // record key), erased, kept
    String topic = "dle-it.dlq";
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    long t0 = System.currentTimeMillis() - 60_000;
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    sent.add(letter(topic, KEPT, KEPT, t0, "kept-1"));
    sent.add(letter(topic, ERASED, ERASED, t0 + 1, "erased-1"));
    sent.add(letter(topic, null, ERASED, t0 + 2, "erased-by-value"));
    sent.add(letter(topic, KEPT, KEPT, t0 + 3, "kept-2"));
    sent.add(letter(topic, ERASED, ERASED, t0 + 4, "erased-2"));
    sent.add(letter(topic, KEPT, KEPT, t0 + 5, "kept-3"));
    sent.get(3).headers().add("x-origin", "bridge".getBytes(StandardCharsets.UTF_8));
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      for (ProducerRecord<byte[], byte[]> r : sent) {
        producer.send(r).get(30, TimeUnit.SECONDS);
      }
    }
    Selection selection = Selection.of(Map.of(ERASED, "--session " + ERASED), Set.of(), null);

    // When
    DeadLetterErasure.Result result;
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      result = DeadLetterErasure.erase(admin, kafka.bootstrapServers(), topic, selection);
    }

    // Then: three letters erased; kept-1 and kept-2 written again (kept-3 came after the cut)
    assertThat(result.erased()).isEqualTo(3);
    assertThat(result.moved()).isEqualTo(2);
    List<ConsumerRecord<byte[], byte[]>> left = read(kafka, topic);
    assertThat(left.stream().map(DeadLetterErasureIT::marker).toList())
        .containsExactly("kept-3", "kept-1", "kept-2");
    for (ConsumerRecord<byte[], byte[]> r : left) {
      ProducerRecord<byte[], byte[]> original =
          sent.stream().filter(s -> marker(s.value()).equals(marker(r))).findFirst().get();
      assertThat(r.key()).isEqualTo(original.key());
      assertThat(r.value()).isEqualTo(original.value());
      assertThat(r.timestamp()).isEqualTo(original.timestamp());
    }
    assertThat(header(left.get(1), DeadLetterErasure.MOVED_FROM)).isEqualTo("0:0");
    assertThat(header(left.get(2), DeadLetterErasure.MOVED_FROM)).isEqualTo("0:3");
    assertThat(header(left.get(2), "x-origin")).isEqualTo("bridge");
    assertThat(header(left.get(0), DeadLetterErasure.MOVED_FROM)).isNull();

    // When: it runs again
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      result = DeadLetterErasure.erase(admin, kafka.bootstrapServers(), topic, selection);
    }

    // Then: nothing changes
    assertThat(result.erased()).isZero();
    assertThat(read(kafka, topic).stream().map(DeadLetterErasureIT::marker).toList())
        .containsExactly("kept-3", "kept-1", "kept-2");
  }

  /** A dead letter as the stream app writes it: its input's key and value, base64. */
  private static ProducerRecord<byte[], byte[]> letter(
      String topic, String recordKey, String session, long ts, String marker) {
    String input = "{\"session_key\":\"" + session + "\",\"body\":\"" + marker + "\"";
    String value =
        "{\"schema_version\":1,\"reason\":\"invalid_json\",\"marker\":\""
            + marker
            + "\",\"original_value\":\""
            + Base64.getEncoder().encodeToString(input.getBytes(StandardCharsets.UTF_8))
            + "\"}";
    return new ProducerRecord<>(
        topic,
        0,
        ts,
        recordKey == null ? null : recordKey.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8),
        new RecordHeaders());
  }

  private static String marker(ConsumerRecord<byte[], byte[]> r) {
    return marker(r.value());
  }

  private static String marker(byte[] value) {
    String text = new String(value, StandardCharsets.UTF_8);
    int at = text.indexOf("\"marker\":\"") + "\"marker\":\"".length();
    return text.substring(at, text.indexOf('"', at));
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static KafkaProducer<byte[], byte[]> producer(KafkaCluster kafka) {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static List<ConsumerRecord<byte[], byte[]>> read(KafkaCluster kafka, String topic) {
    Properties p = new Properties();
    p.putAll(kafka.clientConfig());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    TopicPartition tp = new TopicPartition(topic, 0);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }
}
