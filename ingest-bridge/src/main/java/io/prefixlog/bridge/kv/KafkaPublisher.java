package io.prefixlog.bridge.kv;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one producer thread: takes records from the {@link PublishQueue} in order and sends them with
 * one idempotent producer ({@code acks=all}), so the records of a source (one key, one partition)
 * reach Kafka in the order the sequencer handed them over. A record Kafka refuses is counted and
 * reported back to its sequencer, which owes a gap marker for it; a producer that fails outright is
 * replaced after a pause.
 */
final class KafkaPublisher implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(KafkaPublisher.class);

  private final PublishQueue queue;
  private final Supplier<Producer<byte[], byte[]>> producers;
  private final KvBridgeMetrics metrics;
  private final Duration retryPause;
  private final Thread thread;
  private volatile boolean running = true;
  private Producer<byte[], byte[]> producer;
  private boolean closed;

  KafkaPublisher(
      PublishQueue queue,
      Supplier<Producer<byte[], byte[]>> producers,
      KvBridgeMetrics metrics,
      Duration retryPause) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.producers = Objects.requireNonNull(producers, "producers");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.retryPause = Objects.requireNonNull(retryPause, "retryPause");
    this.thread = new Thread(this::run, "prefixlog-kv-publisher");
  }

  void start() {
    producer = producers.get();
    thread.start();
  }

  private void run() {
    try {
      while (running || queue.depth() > 0) {
        PublishQueue.Outgoing outgoing = queue.poll(100, TimeUnit.MILLISECONDS);
        if (outgoing != null) {
          send(outgoing);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOGGER.atWarn().setMessage("publisher interrupted; records left in the queue").log();
    }
  }

  private void send(PublishQueue.Outgoing outgoing) throws InterruptedException {
    try {
      producer.send(
          new ProducerRecord<>(outgoing.topic(), outgoing.key(), outgoing.value()),
          (metadata, error) -> {
            if (error == null) {
              metrics.published.increment();
            } else {
              refused(outgoing, error);
            }
          });
    } catch (KafkaException e) {
      // The producer is unusable (a fatal error, or closed): replace it.
      refused(outgoing, e);
      Producer<byte[], byte[]> failed = producer;
      failed.close(Duration.ZERO);
      Thread.sleep(retryPause.toMillis());
      producer = producers.get();
    }
  }

  private void refused(PublishQueue.Outgoing outgoing, Exception error) {
    metrics.publishFailures.increment();
    LOGGER
        .atError()
        .setMessage("Kafka refused a record; its source owes a gap marker")
        .addKeyValue("topic", outgoing.topic())
        .addKeyValue("error", error.toString())
        .log();
    outgoing.lost();
  }

  /** Sends what is queued (for at most {@code drain}), flushes and closes the producer. */
  void close(Duration drain) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    running = false;
    try {
      thread.join(Math.max(1, drain.toMillis()));
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(1000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (queue.depth() > 0) {
      LOGGER
          .atWarn()
          .setMessage("closing with records unsent")
          .addKeyValue("records", queue.depth())
          .log();
    }
    if (producer != null) {
      producer.close(drain); // sends what is buffered, waiting at most drain
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }
}
