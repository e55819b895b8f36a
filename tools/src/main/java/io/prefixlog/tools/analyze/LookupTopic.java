package io.prefixlog.tools.analyze;

import io.prefixlog.tools.cli.Causes;
import io.prefixlog.tools.cli.Progress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the lookups topic from the beginning up to the end offsets taken at the start, then stops,
 * as {@code reconstruct} reads the deltas topic: every partition assigned (no consumer group,
 * nothing committed), {@code read_committed} so that aborted transactions of the exactly-once
 * stream app are never seen. Records go to {@link Trace#addKeyed}, which applies compaction's rule
 * (the latest record of a {@code request_id} wins, a tombstone removes it).
 *
 * <p>TODO(tools): this and {@code reconstruct.TopicReader} are the same loop with a different
 * record handler; one shared "read a topic to its end offsets" class would serve both.
 */
final class LookupTopic {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** No record and no position change for this long means the read is stuck. */
  static final Duration STALL = Duration.ofSeconds(60);

  /** Lookup records are small: a hash list of a 16 MiB capture in 256-byte chunks is ~1.5 MB. */
  static final int MAX_FETCH_BYTES = 8 * 1024 * 1024;

  private LookupTopic() {}

  /** What was read. */
  record Stats(int partitions, long records, long bytes) {}

  /** The read failed: the message says why and what to do. */
  static final class ReadException extends Exception {
    ReadException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  static Properties consumerConfig(String bootstrap) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "prefixlog-analyze");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(MAX_FETCH_BYTES));
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(4 * MAX_FETCH_BYTES));
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
    return p;
  }

  /**
   * Reads the topic into the trace.
   *
   * @throws ReadException when Kafka cannot be reached, the topic does not exist, or the read
   *     stalls
   */
  static Stats read(String bootstrap, String topic, Trace trace, Progress progress)
      throws ReadException {
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerConfig(bootstrap))) {
      List<PartitionInfo> infos;
      try {
        infos = consumer.partitionsFor(topic, TIMEOUT);
      } catch (TimeoutException e) {
        throw new ReadException(
            "cannot reach Kafka at "
                + bootstrap
                + " within "
                + TIMEOUT.toSeconds()
                + " s: is a broker running there? (--bootstrap picks another; --file reads"
                + " files)",
            e);
      }
      if (infos == null || infos.isEmpty()) {
        throw new ReadException(
            "topic "
                + topic
                + " does not exist at "
                + bootstrap
                + " (the stream app creates it; check --topic-prefix)",
            null);
      }
      List<TopicPartition> partitions =
          infos.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, TIMEOUT);
      // With read_committed these are the last stable offsets: open transactions are not waited
      // for.
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
      consumer.seekToBeginning(partitions);
      long expected = 0;
      Set<TopicPartition> remaining = new HashSet<>();
      for (TopicPartition tp : partitions) {
        expected += end.get(tp) - begin.get(tp);
        if (end.get(tp) > begin.get(tp)) {
          remaining.add(tp);
        }
      }
      progress.total(expected);
      consumer.pause(partitions.stream().filter(tp -> !remaining.contains(tp)).toList());
      long records = 0;
      long bytes = 0;
      Map<TopicPartition, Long> lastPosition = new HashMap<>();
      long lastProgress = System.nanoTime();
      while (!remaining.isEmpty()) {
        ConsumerRecords<String, byte[]> batch = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, byte[]> record : batch) {
          TopicPartition tp = new TopicPartition(record.topic(), record.partition());
          if (record.offset() >= end.get(tp)) {
            continue; // written after the start: not part of this read
          }
          records++;
          if (record.value() == null) {
            trace.addKeyed(record.key(), null);
            continue;
          }
          bytes += record.value().length;
          try {
            trace.addKeyed(record.key(), LookupParser.parseValue(record.value()));
          } catch (LookupParser.BadLineException e) {
            trace.bad(
                topic + " partition " + record.partition() + " offset " + record.offset(),
                e.getMessage());
          }
        }
        progress.update(records);
        boolean moved = !batch.isEmpty();
        for (TopicPartition tp : List.copyOf(remaining)) {
          long position = consumer.position(tp, TIMEOUT);
          Long previous = lastPosition.put(tp, position);
          moved |= previous == null || previous != position;
          if (position >= end.get(tp)) {
            remaining.remove(tp);
            consumer.pause(List.of(tp));
          }
        }
        if (moved) {
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
          throw new ReadException(
              "no progress for "
                  + STALL.toSeconds()
                  + " s reading "
                  + remaining
                  + " of "
                  + topic
                  + " at "
                  + bootstrap,
              null);
        }
      }
      return new Stats(partitions.size(), records, bytes);
    } catch (TimeoutException e) {
      throw new ReadException(
          "Kafka at " + bootstrap + " did not answer within " + TIMEOUT.toSeconds() + " s", e);
    } catch (KafkaException e) {
      throw new ReadException(
          "cannot read " + topic + " at " + bootstrap + ": " + Causes.describe(e), e);
    }
  }
}
