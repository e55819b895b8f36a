package io.prefixlog.bridge.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.kv.KvMarkers;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PublishQueueTest {
  private static final KvSource SOURCE = KvSource.of("tcp://h:5557", 0, "kv");
  private static final KvEventBatch MARKER = KvMarkers.restart(SOURCE, 0, 1);

  @Test
  void shouldRefuseBeyondItsRecordBoundAndTakeAgainOnceDrained() throws InterruptedException {
    // Given
    PublishQueue queue = new PublishQueue(Topics.withPrefix("t."), 2, 1 << 20);

    // When
    boolean first = queue.offer(MARKER, null);
    boolean second = queue.offerDeadLetter(new byte[] {1}, letter());
    boolean third = queue.offer(MARKER, null);
    PublishQueue.Outgoing taken = queue.poll(1, TimeUnit.SECONDS);
    boolean fourth = queue.offer(MARKER, null);

    // Then
    assertThat(first).isTrue();
    assertThat(second).isTrue();
    assertThat(third).isFalse();
    assertThat(fourth).isTrue();
    assertThat(taken.topic()).isEqualTo("t.kv.events");
    assertThat(new String(taken.key(), StandardCharsets.UTF_8)).isEqualTo("tcp://h:5557|dp0|kv");
    assertThat(new String(taken.value(), StandardCharsets.UTF_8))
        .contains("\"marker\":\"restart\"");
    assertThat(queue.depth()).isEqualTo(2);
  }

  @Test
  void shouldRefuseBeyondItsByteBound() throws InterruptedException {
    // Given: room for one record's bytes only
    PublishQueue probe = new PublishQueue(Topics.withPrefix(""), 10, 1 << 20);
    probe.offer(MARKER, null);
    long oneRecord = probe.bytes();
    PublishQueue queue = new PublishQueue(Topics.withPrefix(""), 10, oneRecord + 1);

    // When
    boolean first = queue.offer(MARKER, null);
    boolean second = queue.offer(MARKER, null);
    queue.poll(1, TimeUnit.SECONDS);

    // Then
    assertThat(first).isTrue();
    assertThat(second).isFalse();
    assertThat(queue.bytes()).isZero();
    assertThat(queue.offer(MARKER, null)).isTrue();
  }

  private static DeadLetter letter() {
    return new DeadLetter(1, 1L, "ingest-bridge", null, null, null, "bad_event", "x", null, null);
  }

  @Test
  void shouldHoldABatchAsItsJsonOnlyNotAsItsDecodedEvents() throws InterruptedException {
    // Given: a decoded batch (its events ~60 bytes of heap per hash, its JSON ~19)
    KvEventBatch batch =
        ((io.prefixlog.core.kv.DecodedBatch)
                io.prefixlog.core.kv.KvBatchDecoder.decode(Frames.storedBatch(1), SOURCE, 7, 1L))
            .batch();
    PublishQueue queue = new PublishQueue(Topics.withPrefix(""), 10, 1 << 20);
    java.util.List<KvEventBatch> lost = new java.util.ArrayList<>();

    // When
    queue.offer(batch, lost::add);
    long held = queue.bytes();
    PublishQueue.Outgoing taken = queue.poll(1, TimeUnit.SECONDS);
    taken.lost();

    // Then: what it holds is the bytes it counts; a lost batch is still told by its seq
    assertThat(taken.batch().events()).isNull();
    assertThat(held).isEqualTo(taken.value().length + (long) taken.key().length);
    assertThat(lost)
        .extracting(KvEventBatch::seq, KvEventBatch::marker)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(7L, null));
  }
}
