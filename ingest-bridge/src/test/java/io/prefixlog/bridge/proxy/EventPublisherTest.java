package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
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
            Duration.ofMillis(10),
            Thread.NORM_PRIORITY);
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

  @Test
  void shouldRunThePublisherAndTheProducersThreadsAtTheCapturePriority() throws Exception {
    // Given: a real producer (it starts its network thread when it is created; no broker needed)
    String clientId = "priority-test-" + System.nanoTime();
    Map<String, Object> props =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            "127.0.0.1:1",
            ProducerConfig.CLIENT_ID_CONFIG,
            clientId,
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            100);
    EventPublisher publisher =
        new EventPublisher(
            new EventQueue(100, 1 << 20),
            () -> new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer()),
            "t",
            metrics,
            null,
            Duration.ofMillis(20),
            Duration.ofMillis(10),
            Thread.MIN_PRIORITY + 1);
    int callerPriority = Thread.currentThread().getPriority();

    // When
    publisher.start();

    // Then: the capture threads have the configured priority, the caller (which goes on to start
    // the event loops) keeps its own
    try {
      assertThat(priorityOf("prefixlog-proxy-publisher")).isEqualTo(Thread.MIN_PRIORITY + 1);
      assertThat(priorityOf("kafka-producer-network-thread | " + clientId))
          .isEqualTo(Thread.MIN_PRIORITY + 1);
      assertThat(Thread.currentThread().getPriority()).isEqualTo(callerPriority);
    } finally {
      publisher.close(Duration.ofSeconds(1));
    }
  }

  @Test
  void shouldFailToStartWhenTheProducerCannotBeCreated() {
    // Given
    EventPublisher publisher =
        new EventPublisher(
            new EventQueue(100, 1 << 20),
            () -> {
              throw new KafkaException("bad producer settings");
            },
            "t",
            metrics,
            null,
            Duration.ofMillis(20),
            Duration.ofMillis(10),
            Thread.MIN_PRIORITY);

    // When / Then: the producer's failure reaches the caller, as when it was created in place
    assertThatThrownBy(publisher::start)
        .isInstanceOf(KafkaException.class)
        .hasMessage("bad producer settings");
  }

  private static int priorityOf(String threadName) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(threadName))
        .mapToInt(Thread::getPriority)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no thread named " + threadName));
  }

  private static void await(BooleanSupplier condition) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(condition::getAsBoolean);
  }
}
