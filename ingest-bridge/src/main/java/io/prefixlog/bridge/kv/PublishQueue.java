package io.prefixlog.bridge.kv;

import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The bounded hand-off between the subscriber threads and the producer thread: records, already
 * serialised, wait here. {@link #offer} never blocks: beyond {@code maxRecords} records or {@code
 * maxBytes} bytes it refuses, and the caller counts the drop and owes a gap marker.
 *
 * <p>A batch waits as its JSON only, the bytes counted: the decoded events (a hash there takes
 * about three times its JSON) are not kept, and a batch Kafka refuses is reported by its numbers
 * alone, all its source needs to owe a marker for it.
 */
final class PublishQueue implements KvSink {
  private static final JsonSerde<KvEventBatch> BATCH = JsonSerde.of(KvEventBatch.class);
  private static final JsonSerde<DeadLetter> LETTER = JsonSerde.of(DeadLetter.class);

  /** One record ready to send; {@code onLost} is told if Kafka refuses it (batches only). */
  record Outgoing(
      String topic, byte[] key, byte[] value, KvEventBatch batch, Consumer<KvEventBatch> onLost) {
    void lost() {
      if (onLost != null) {
        onLost.accept(batch);
      }
    }
  }

  private final String eventsTopic;
  private final String deadLetterTopic;
  private final BlockingQueue<Outgoing> queue;
  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();

  PublishQueue(Topics topics, int maxRecords, long maxBytes) {
    Objects.requireNonNull(topics, "topics");
    this.eventsTopic = topics.kvEvents().name();
    this.deadLetterTopic = topics.deadLetters().name();
    this.queue = new ArrayBlockingQueue<>(maxRecords);
    this.maxBytes = maxBytes;
  }

  @Override
  public boolean offer(KvEventBatch record, Consumer<KvEventBatch> onLost) {
    return offer(
        new Outgoing(
            eventsTopic,
            record.source().getBytes(StandardCharsets.UTF_8),
            BATCH.toBytes(record),
            withoutEvents(record),
            onLost));
  }

  @Override
  public boolean offerDeadLetter(byte[] key, DeadLetter letter) {
    return offer(new Outgoing(deadLetterTopic, key, LETTER.toBytes(letter), null, null));
  }

  private boolean offer(Outgoing outgoing) {
    long size = size(outgoing);
    if (bytes.addAndGet(size) > maxBytes) {
      bytes.addAndGet(-size);
      return false;
    }
    if (!queue.offer(outgoing)) {
      bytes.addAndGet(-size);
      return false;
    }
    return true;
  }

  /** The next record, waiting at most {@code timeout}; {@code null} when none came. */
  Outgoing poll(long timeout, TimeUnit unit) throws InterruptedException {
    Outgoing outgoing = queue.poll(timeout, unit);
    if (outgoing != null) {
      bytes.addAndGet(-size(outgoing));
    }
    return outgoing;
  }

  int depth() {
    return queue.size();
  }

  long bytes() {
    return bytes.get();
  }

  /** What tells a lost record from another: its source, numbers and marker. */
  private static KvEventBatch withoutEvents(KvEventBatch record) {
    return record.events() == null
        ? record
        : new KvEventBatch(
            record.schemaVersion(),
            record.source(),
            record.endpoint(),
            record.dataParallelRank(),
            record.topic(),
            record.seq(),
            record.ts(),
            record.engineTs(),
            record.marker(),
            record.missingFrom(),
            record.missingTo(),
            null);
  }

  private static long size(Outgoing outgoing) {
    return outgoing.value().length + (long) outgoing.key().length;
  }
}
