package io.prefixlog.tools.erase;

import io.prefixlog.tools.topic.KafkaClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The erasure's one producer: tombstones and orders, idempotent with {@code acks=all}, each send
 * confirmed before the command reports it done (a tombstone the broker did not take must not be
 * reported as written).
 */
final class ControlProducer implements AutoCloseable {
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaProducer<String, byte[]> producer;
  private final List<Future<RecordMetadata>> pending = new ArrayList<>();

  ControlProducer(String bootstrap) {
    Properties p = KafkaClients.idempotentWriter(bootstrap, "prefixlog-erase");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) SEND_TIMEOUT.toMillis());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) SEND_TIMEOUT.toMillis());
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) SEND_TIMEOUT.toMillis() / 2);
    this.producer = new KafkaProducer<>(p);
  }

  /** Queues a record (partition null: the default partitioner, by key). */
  void send(ProducerRecord<String, byte[]> record) {
    pending.add(producer.send(record));
  }

  /**
   * Waits until the broker took every record queued so far.
   *
   * @throws KafkaWriteException naming the first failure
   */
  void confirm() throws KafkaWriteException {
    producer.flush();
    try {
      for (Future<RecordMetadata> sent : pending) {
        sent.get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (ExecutionException e) {
      throw new KafkaWriteException("Kafka refused a record: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new KafkaWriteException(
          "Kafka did not confirm a record within " + SEND_TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaWriteException("interrupted while waiting for Kafka", e);
    } finally {
      pending.clear();
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }

  /** A write the broker did not confirm. */
  static final class KafkaWriteException extends Exception {
    KafkaWriteException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
