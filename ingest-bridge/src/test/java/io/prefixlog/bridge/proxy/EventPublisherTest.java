package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTimestampException;
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

  /** The bridge's clock in these tests. */
  private static final long NOW = 1_800_000_000_000L;

  private final ProxyMetrics metrics = new ProxyMetrics(new SimpleMeterRegistry());
  private final RecordTime recordTime =
      new RecordTime(Duration.ofMinutes(5), Duration.ofHours(12), () -> NOW, metrics);

  private EventPublisher publisher(Path spillDir) {
    return publisher(spillDir, producer);
  }

  private EventPublisher publisher(Path spillDir, MockProducer<String, byte[]> producer) {
    EventPublisher publisher =
        new EventPublisher(
            new EventQueue(100, 1 << 20),
            EventPublisherTest::neverCaptured,
            () -> producer,
            "t",
            metrics,
            spillDir == null
                ? null
                : new SpillStore(spillDir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2),
            new EventPublisher.Pace(
                Duration.ofMillis(20), Duration.ofMillis(10), Thread.NORM_PRIORITY),
            recordTime);
    publisher.start();
    return publisher;
  }

  /** These tests offer encoded events only, as the ingest endpoint does. */
  private static EncodedEvent neverCaptured(CapturedExchange exchange) {
    throw new AssertionError("no captured exchange was offered: " + exchange);
  }

  private static EncodedEvent event(String id) {
    return event(id, NOW);
  }

  private static EncodedEvent event(String id, long captureMs) {
    return new EncodedEvent("k", id.getBytes(StandardCharsets.UTF_8), id, captureMs);
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
  void shouldTimestampEachRecordWithItsCaptureTimeOrTheClockBeyondTheBounds() throws Exception {
    // Given: captures an hour ago, a minute ahead, six minutes ahead (beyond the 5 min skew) and
    // 13 hours ago (beyond the 12 h age)
    EventPublisher publisher = publisher(null);
    long hourAgo = NOW - Duration.ofHours(1).toMillis();
    long minuteAhead = NOW + Duration.ofMinutes(1).toMillis();

    // When
    publisher.offer(event("a", hourAgo));
    publisher.offer(event("b", minuteAhead));
    publisher.offer(event("c", NOW + Duration.ofMinutes(6).toMillis()));
    publisher.offer(event("d", NOW - Duration.ofHours(13).toMillis()));
    await(() -> producer.history().size() == 4);

    // Then
    assertThat(producer.history().stream().map(ProducerRecord::timestamp).toList())
        .containsExactly(hourAgo, minuteAhead, NOW, NOW);
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.AHEAD).count()).isEqualTo(1);
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.OLD).count()).isEqualTo(1);
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.REFUSED).count()).isZero();
    publisher.close(Duration.ofSeconds(5));
  }

  @Test
  void shouldKeepTheCaptureTimeOfASpilledEventWhenItIsResent(@TempDir Path dir) throws Exception {
    // Given: two events in flight when Kafka becomes unavailable
    EventPublisher publisher = publisher(dir);
    publisher.offer(event("a", NOW - 2_000));
    publisher.offer(event("b", NOW - 1_000));
    await(() -> producer.history().size() == 2);

    // When: both fail, are spilled and resent
    synchronized (producer) {
      producer.errorNext(new TimeoutException("expired"));
      producer.errorNext(new TimeoutException("expired"));
    }
    await(() -> metrics.resent.count() == 2);

    // Then
    assertThat(values(producer.history().subList(2, 4))).containsExactly("a", "b");
    assertThat(producer.history().subList(2, 4).stream().map(ProducerRecord::timestamp).toList())
        .containsExactly(NOW - 2_000, NOW - 1_000);
    publisher.close(Duration.ofSeconds(5));
  }

  @Test
  void shouldSendAnEventWhoseCaptureTimeTheBrokerRefusedAgainWithTheClock() throws Exception {
    // Given: no spill, and a broker whose bounds are tighter than the bridge's
    EventPublisher publisher = publisher(null);
    long captured = NOW - Duration.ofHours(2).toMillis();
    publisher.offer(event("a", captured));
    await(() -> producer.history().size() == 1);

    // When
    producer.errorNext(new InvalidTimestampException("timestamp out of range"));
    await(() -> producer.history().size() == 2);
    producer.completeNext();

    // Then: sent again with the bridge's clock, published, nothing dropped
    await(() -> metrics.published.count() == 1);
    assertThat(producer.history().stream().map(ProducerRecord::timestamp).toList())
        .containsExactly(captured, NOW);
    assertThat(values(producer.history())).containsExactly("a", "a");
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.REFUSED).count()).isEqualTo(1);
    assertThat(metrics.dropped("rejected").count()).isZero();
    assertThat(metrics.dropped("kafka").count()).isZero();
    publisher.close(Duration.ofSeconds(5));
  }

  @Test
  void shouldSpillAnEventWhoseCaptureTimeTheBrokerRefusedAndResendItWithTheClock(@TempDir Path dir)
      throws Exception {
    // Given
    EventPublisher publisher = publisher(dir);
    long captured = NOW - Duration.ofHours(2).toMillis();
    publisher.offer(event("a", captured));
    await(() -> producer.history().size() == 1);

    // When
    producer.errorNext(new InvalidTimestampException("timestamp out of range"));

    // Then: spilled in its order, resent with the bridge's clock, acknowledged once
    await(() -> metrics.resent.count() == 1);
    assertThat(producer.history().stream().map(ProducerRecord::timestamp).toList())
        .containsExactly(captured, NOW);
    assertThat(metrics.spilled.count()).isEqualTo(1);
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.REFUSED).count()).isEqualTo(1);
    assertThat(metrics.dropped("rejected").count()).isZero();
    await(() -> !publisher.spilling());
    publisher.close(Duration.ofSeconds(5));
  }

  @Test
  void shouldResendASpilledEventWithTheClockWhenTheBrokerRefusesItsCaptureTime(@TempDir Path dir)
      throws Exception {
    // Given: an event captured two hours ago spilled while Kafka was away, and a broker that then
    // refuses timestamps older than an hour (message.timestamp.before.max.ms)
    BrokerWithBounds broker = new BrokerWithBounds();
    EventPublisher publisher = publisher(dir, broker);
    long captured = NOW - Duration.ofHours(2).toMillis();
    publisher.offer(event("a", captured));
    await(() -> broker.history().size() == 1);
    broker.oldestTaken = NOW - Duration.ofHours(1).toMillis();

    // When
    broker.errorNext(new TimeoutException("expired"));

    // Then: resent with its capture time, refused, sent again at once with the bridge's clock
    await(() -> metrics.resent.count() == 1);
    assertThat(broker.attempts.stream().map(ProducerRecord::timestamp).toList())
        .containsExactly(captured, captured, NOW);
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.REFUSED).count()).isEqualTo(1);
    assertThat(metrics.dropped("rejected").count()).isZero();
    assertThat(publisher.spillPending()).isZero();
    publisher.close(Duration.ofSeconds(5));
  }

  /**
   * A broker that refuses, as Kafka does in the send's callback, a record whose timestamp is older
   * than {@link #oldestTaken}.
   */
  private static final class BrokerWithBounds extends MockProducer<String, byte[]> {
    private volatile long oldestTaken = Long.MIN_VALUE;

    BrokerWithBounds() {
      super(false, null, new StringSerializer(), new ByteArraySerializer());
    }

    /** Every record sent, refused or not (the mock's history holds the taken ones only). */
    private final List<ProducerRecord<String, byte[]>> attempts = new CopyOnWriteArrayList<>();

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<String, byte[]> record, Callback callback) {
      attempts.add(record);
      if (record.timestamp() != null && record.timestamp() < oldestTaken) {
        InvalidTimestampException refused =
            new InvalidTimestampException("older than message.timestamp.before.max.ms");
        callback.onCompletion(null, refused);
        return CompletableFuture.failedFuture(refused);
      }
      return super.send(record, callback);
    }
  }

  @Test
  void shouldDropAnEventTheBrokerRefusesEvenWithTheClock() throws Exception {
    // Given: a broker whose clock is far from the bridge's
    EventPublisher publisher = publisher(null);
    publisher.offer(event("a", NOW));
    await(() -> producer.history().size() == 1);

    // When
    producer.errorNext(new InvalidTimestampException("timestamp out of range"));
    await(() -> producer.history().size() == 2);
    producer.errorNext(new InvalidTimestampException("timestamp out of range"));

    // Then: counted, and the publisher goes on
    await(() -> metrics.dropped("rejected").count() == 1);
    assertThat(metrics.recordTimeAdjusted(RecordTime.Reason.REFUSED).count()).isEqualTo(1);
    publisher.offer(event("b", NOW));
    await(() -> producer.history().size() == 3);
    producer.completeNext();
    await(() -> metrics.published.count() == 1);
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
            EventPublisherTest::neverCaptured,
            () -> new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer()),
            "t",
            metrics,
            null,
            new EventPublisher.Pace(
                Duration.ofMillis(20), Duration.ofMillis(10), Thread.MIN_PRIORITY + 1),
            recordTime);
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
            EventPublisherTest::neverCaptured,
            () -> {
              throw new KafkaException("bad producer settings");
            },
            "t",
            metrics,
            null,
            new EventPublisher.Pace(
                Duration.ofMillis(20), Duration.ofMillis(10), Thread.MIN_PRIORITY),
            recordTime);

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
