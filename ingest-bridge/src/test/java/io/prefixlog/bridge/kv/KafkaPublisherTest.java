package io.prefixlog.bridge.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.kv.KvMarkers;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class KafkaPublisherTest {
  private static final KvSource SOURCE = KvSource.of("tcp://h:5557", 0, "kv");

  @Test
  void shouldSendInQueueOrderAndReportWhatKafkaRefused() throws InterruptedException {
    // Given: a producer that completes sends only when told
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    KvBridgeMetrics metrics = new KvBridgeMetrics(new SimpleMeterRegistry());
    PublishQueue queue = new PublishQueue(Topics.withPrefix("p."), 100, 1 << 20);
    KafkaPublisher publisher =
        new KafkaPublisher(queue, () -> producer, metrics, Duration.ofMillis(1));
    List<KvEventBatch> lost = new CopyOnWriteArrayList<>();
    publisher.start();

    // When
    for (long seq = 0; seq < 3; seq++) {
      queue.offer(KvMarkers.gap(SOURCE, seq + 10, seq, seq, 1), lost::add);
    }
    // A deadline: a publisher that never sends would otherwise hang the build here.
    await()
        .alias("3 records handed to the producer")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> producer.history().size(), size -> size >= 3);
    producer.completeNext();
    producer.errorNext(new org.apache.kafka.common.errors.RecordTooLargeException("too large"));
    producer.completeNext();
    publisher.close(Duration.ofSeconds(5));

    // Then
    assertThat(producer.history())
        .extracting(
            r ->
                new String(r.value(), StandardCharsets.UTF_8)
                    .replaceAll(".*\"seq\":(\\d+).*", "$1"))
        .containsExactly("10", "11", "12");
    assertThat(producer.history()).allSatisfy(r -> assertThat(r.topic()).isEqualTo("p.kv.events"));
    assertThat(lost).extracting(KvEventBatch::seq).containsExactly(11L);
    assertThat(Meters.count(metrics.registry(), KvBridgeMetrics.PUBLISHED)).isEqualTo(2);
    assertThat(Meters.count(metrics.registry(), KvBridgeMetrics.PUBLISH_FAILURES)).isEqualTo(1);
  }
}
