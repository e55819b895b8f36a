package io.prefixlog.tools.ui;

import io.prefixlog.tools.topic.KafkaClients;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an index up to date ({@link SessionIndex} for the deltas, {@link ChunkIndex} for the chunk
 * lookups, {@link BlockIndex} for the KV block index): reads its topic from the beginning, then
 * follows it, on one thread. Every partition is assigned (no consumer group, nothing committed):
 * each UI instance reads the whole topic, so instances behind a load balancer agree. {@code
 * read_committed}, as the stream app writes in transactions. When the topic does not exist yet (the
 * UI started before the stream app), it waits for it.
 */
final class IndexFollower implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(IndexFollower.class);
  private static final Duration POLL = Duration.ofMillis(500);

  /** Where the follower puts each record: a value, or null for a tombstone. */
  @FunctionalInterface
  interface Sink {
    void put(String key, byte[] value, int partition, long offset);
  }

  private final String topic;
  private final Sink index;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Thread thread;
  private final CountDownLatch caughtUp = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile String problem = "";

  IndexFollower(String bootstrap, String topic, SessionIndex index, int maxRecordBytes) {
    this(bootstrap, topic, index::put, maxRecordBytes, "prefixlog-ui-index");
  }

  /**
   * @param name the consumer's client id and the thread's name
   */
  IndexFollower(String bootstrap, String topic, Sink index, int maxRecordBytes, String name) {
    this.topic = topic;
    this.index = index;
    this.consumer = new KafkaConsumer<>(config(bootstrap, name, maxRecordBytes));
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
  }

  static Properties config(String bootstrap, String clientId, int maxRecordBytes) {
    Properties p = KafkaClients.committedReader(bootstrap, clientId);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // A reader never creates what it reads: a topic the stream app has not created yet is waited
    // for. Asking a broker with ACLs to create one the user may only read is "not authorized".
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(maxRecordBytes));
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(maxRecordBytes));
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }

  void start() {
    thread.start();
  }

  /** Waits until the records that were on the topic when the read started are in the index. */
  boolean awaitCaughtUp(long timeout, TimeUnit unit) throws InterruptedException {
    return caughtUp.await(timeout, unit);
  }

  boolean caughtUp() {
    return caughtUp.getCount() == 0;
  }

  /** Why the index is not following, or {@code ""}. */
  String problem() {
    return problem;
  }

  private void run() {
    try {
      List<TopicPartition> partitions = awaitTopic();
      if (partitions.isEmpty()) {
        return;
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions));
      LOGGER.info("Following topic={} partitions={}", topic, partitions.size());
      while (!closed) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
          index.put(r.key(), r.value(), r.partition(), r.offset());
        }
        if (!end.isEmpty()) {
          end.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
          if (end.isEmpty()) {
            caughtUp.countDown();
            LOGGER.info("Caught up topic={}", topic);
          }
        }
        problem = "";
      }
    } catch (WakeupException e) {
      if (!closed) {
        throw e;
      }
    } catch (RuntimeException e) {
      // The pages say so; the operator restarts the UI (there is no partial state to keep).
      problem = "the index stopped following " + topic + ": " + e;
      LOGGER.error("Index stopped topic={}", topic, e);
    } finally {
      consumer.close();
    }
  }

  private List<TopicPartition> awaitTopic() {
    while (!closed) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
      if (infos != null && !infos.isEmpty()) {
        return infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
      }
      problem =
          "waiting for topic " + topic + " (is the stream app running? is --topic-prefix right?)";
      for (int i = 0; i < 20 && !closed; i++) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return List.of();
        }
      }
    }
    return List.of();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    // Not an interrupt: the consumer's own close would be interrupted and leave its fetch
    // sessions open on the broker. A wakeup ends a poll; the waits for the topic check closed.
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
