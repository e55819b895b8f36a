package io.prefixlog.tools.replay;

import io.prefixlog.cli.Causes;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.tools.topic.KafkaClients;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends events to the raw topic with an idempotent producer ({@code acks=all}), after checking with
 * the Admin API that the topic exists: creating topics is the stream app's job, and a producer
 * would otherwise wait {@code max.block.ms} for metadata of a topic that never comes.
 */
final class KafkaEventSink implements EventSink {
  /**
   * The capture limit (16 MiB, docs/design.md#topics), doubled for JSON escaping or base64, plus 1
   * MiB for the other fields: the stream app's {@code StreamAppConfig.maxRecordBytes()} at its
   * defaults.
   */
  static final int MAX_REQUEST_BYTES = (int) RecordLimits.DEFAULT_MAX_RECORD_BYTES;

  static final Duration CHECK_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;

  private KafkaEventSink(KafkaProducer<String, byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
  }

  /** Checks the topic, then opens the producer. */
  static KafkaEventSink open(String bootstrap, String topic) throws SinkException {
    checkTopic(bootstrap, topic);
    try {
      return new KafkaEventSink(new KafkaProducer<>(producerConfig(bootstrap)), topic);
    } catch (KafkaException e) {
      throw new SinkException(
          "cannot create a producer for " + bootstrap + ": " + e.getMessage(), e);
    }
  }

  static Properties producerConfig(String bootstrap) {
    Properties p = KafkaClients.idempotentWriter(bootstrap, "prefixlog-replay");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    // One request in flight: on a loaded machine, pipelined retries of an idempotent producer were
    // seen to loop on OutOfOrderSequenceException until the delivery timeout expired them (an
    // integration run on 2 busy cores). A replay is a load generator: order and every
    // acknowledgement matter more than pipelining, and 64 KiB batches keep it fast.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_REQUEST_BYTES));
    // buffer.memory (32 MiB by default) must hold at least one record of the maximum size.
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(2L * MAX_REQUEST_BYTES));
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // Chat turns are a few kB: 64 KiB batches compress better than the 16 KiB default.
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(64 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return p;
  }

  private static void checkTopic(String bootstrap, String topic) throws SinkException {
    Properties p = KafkaClients.properties(bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "prefixlog-replay-check");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(CHECK_TIMEOUT.toMillis()));
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(CHECK_TIMEOUT.toMillis()));
    String unreachable =
        "cannot reach Kafka at "
            + bootstrap
            + " within "
            + CHECK_TIMEOUT.toSeconds()
            + " s: is a broker running there? (prefixlog up starts one; --bootstrap picks another)";
    try (Admin admin = Admin.create(p)) {
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(CHECK_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UnknownTopicOrPartitionException) {
        throw new SinkException(
            "topic "
                + topic
                + " does not exist at "
                + bootstrap
                + ": the stream app creates it when it starts (prefixlog up), or check"
                + " --topic-prefix");
      }
      if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw new SinkException(unreachable, cause);
      }
      throw new SinkException(
          "cannot check topic " + topic + " at " + bootstrap + ": " + Causes.describe(cause),
          cause);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new SinkException(unreachable, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while checking topic " + topic, e);
    } catch (KafkaException e) {
      throw new SinkException("cannot connect to " + bootstrap + ": " + Causes.describe(e), e);
    }
  }

  @Override
  public void send(String key, byte[] value, Consumer<Exception> onResult) {
    try {
      producer.send(new ProducerRecord<>(topic, key, value), (metadata, e) -> onResult.accept(e));
    } catch (KafkaException e) {
      onResult.accept(e);
    }
  }

  @Override
  public void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(30));
  }
}
