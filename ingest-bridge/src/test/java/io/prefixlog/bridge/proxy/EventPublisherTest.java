package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The publisher's decisions, driven through Kafka's {@link MockProducer} (what a broker must prove
 * is in {@code BrokerDownIT}): which failures spill, which drop, and the order of a resend.
 */
class EventPublisherTest {
  private final MockProducer<String, byte[]> producer =
      new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
  private final ProxyMetrics metrics = new ProxyMetrics(new SimpleMeterRegistry());

  private EventPublisher publisher(Path spillDir) {
    EventPublisher publisher =
        new EventPublisher(
            new EventQueue(100, 1 << 20),
            () -> producer,
            "t",
            metrics,
            spillDir == null ? null : new SpillStore(spillDir, 1 << 20, 64 << 10),
            Duration.ofMillis(20),
            Duration.ofMillis(10));
    publisher.start();
    return publisher;
  }

  private static EncodedEvent event(String id) {
    return new EncodedEvent("k", id.getBytes(StandardCharsets.UTF_8), id);
  }

  private static List<String> values(List<ProducerRecord<String, byte[]>> records) {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  @Test
  void shouldDropARecordKafkaRejectsInsteadOfSpillingIt(@TempDir Path dir) throws Exception {
    // Given
    EventPublisher publisher = publisher(dir);
    publisher.offer(event("a"));
    await(() -> producer.history().size() == 1);

    // When: Kafka rejects the record itself
    producer.errorNext(new RecordTooLargeException("too large"));
    await(() -> metrics.dropped("rejected").count() == 1);
    publisher.offer(event("b"));
    await(() -> producer.history().size() == 2);
    producer.completeNext();

    // Then
    await(() -> metrics.published.count() == 1);
    assertThat(metrics.spilled.count()).isZero();
    assertThat(publisher.spilling()).isFalse();
    publisher.close(Duration.ofSeconds(5));
  }

  @Test
  void shouldCountUnavailableKafkaAsDroppedWithoutASpill() throws Exception {
    // Given
    EventPublisher publisher = publisher(null);
    publisher.offer(event("a"));
    publisher.offer(event("b"));
    await(() -> producer.history().size() == 2);

    // When
    producer.errorNext(new TimeoutException("expired"));
    producer.errorNext(new TimeoutException("expired"));

    // Then
    await(() -> metrics.dropped("kafka").count() == 2);
    assertThat(metrics.published.count()).isZero();
    publisher.close(Duration.ofSeconds(5));
  }

  @Test
  void shouldSpillFailedEventsInSendOrderAndResendThemBeforeNewerOnes(@TempDir Path dir)
      throws Exception {
    // Given: three events in flight when Kafka becomes unavailable
    EventPublisher publisher = publisher(dir);
    publisher.offer(event("a"));
    publisher.offer(event("b"));
    publisher.offer(event("c"));
    await(() -> producer.history().size() == 3);

    // When: all three fail (under the producer's lock, so no flush completes one meanwhile)
    synchronized (producer) {
      producer.errorNext(new TimeoutException("expired"));
      producer.errorNext(new TimeoutException("expired"));
      producer.errorNext(new TimeoutException("expired"));
    }

    // Then: spilled, then resent in order (the mock acknowledges on flush), then online again
    await(() -> metrics.resent.count() == 3);
    assertThat(metrics.spilled.count()).isEqualTo(3);
    assertThat(values(producer.history().subList(3, 6))).containsExactly("a", "b", "c");
    await(() -> !publisher.spilling());
    publisher.offer(event("d"));
    await(() -> producer.history().size() == 7);
    producer.completeNext();
    await(() -> metrics.published.count() == 4);
    assertThat(publisher.spillPending()).isZero();
    publisher.close(Duration.ofSeconds(5));
  }

  private static void await(BooleanSupplier condition) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(condition::getAsBoolean);
  }
}
