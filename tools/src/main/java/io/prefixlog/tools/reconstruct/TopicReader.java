package io.prefixlog.tools.reconstruct;

import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.rebuild.TurnKey;
import io.prefixlog.tools.cli.Causes;
import io.prefixlog.tools.cli.Progress;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * Reads the deltas topic from the beginning up to the end offsets taken at the start, then stops:
 * every partition assigned (no consumer group, nothing committed), {@code read_committed} so that
 * aborted transactions of the exactly-once stream app are never seen, and fetch sizes for records
 * of up to the capture limit. Values go to a {@link Spool} and are parsed when their session is
 * rebuilt.
 */
final class TopicReader {
  /**
   * The largest delta record: a keyframe of a body at the capture limit (16 MiB, DESIGN §3),
   * doubled for JSON escaping or base64, plus 1 MiB of metadata, as the stream app's {@code
   * StreamAppConfig.maxRecordBytes()} at its defaults.
   */
  static final int MAX_RECORD_BYTES = 2 * 16 * 1024 * 1024 + 1024 * 1024;

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** No record and no position change for this long means the read is stuck. */
  static final Duration STALL = Duration.ofSeconds(60);

  private TopicReader() {}

  /** What was read. */
  record Stats(int partitions, long records, long tombstones, long bytes) {}

  /** The read failed: the message says why and what to do. */
  static final class ReadException extends Exception {
    ReadException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  static Properties consumerConfig(String bootstrap) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "prefixlog-reconstruct");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // Soft limits (a larger first batch is still returned), sized so that a full-size record
    // comes in one fetch.
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(MAX_RECORD_BYTES));
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(2 * MAX_RECORD_BYTES));
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
    return p;
  }

  /**
   * Reads the topic into the rebuilder, spooling values to {@code spool}.
   *
   * @throws ReadException when Kafka cannot be reached, the topic does not exist, or the read
   *     stalls
   * @throws IOException when the spool cannot be written
   */
  static Stats read(
      String bootstrap, String topic, Rebuilder rebuilder, Spool spool, Progress progress)
      throws ReadException, IOException {
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
                + " s: is a broker running there? (--bootstrap picks another; --file reads a"
                + " dump)",
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
      consumer.pause(difference(partitions, remaining));
      long records = 0;
      long tombstones = 0;
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
            tombstones++;
          } else {
            bytes += record.value().length;
          }
          String location = "partition " + record.partition() + " offset " + record.offset();
          Optional<TurnKey> key = TurnKey.parse(record.key());
          if (key.isPresent() && record.value() != null) {
            long offset = spool.append(record.value());
            rebuilder.add(key.get(), spool.jsonAt(offset, record.value().length), location);
          } else {
            // Tombstones, and records whose key is unusable (reported, or filed by their value).
            rebuilder.addTopicRecord(record.key(), record.value(), location);
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
      spool.finishWriting();
      return new Stats(partitions.size(), records, tombstones, bytes);
    } catch (TimeoutException e) {
      throw new ReadException(
          "Kafka at " + bootstrap + " did not answer within " + TIMEOUT.toSeconds() + " s", e);
    } catch (KafkaException e) {
      throw new ReadException(
          "cannot read " + topic + " at " + bootstrap + ": " + Causes.describe(e), e);
    }
  }

  private static List<TopicPartition> difference(
      List<TopicPartition> all, Set<TopicPartition> remove) {
    return all.stream().filter(tp -> !remove.contains(tp)).toList();
  }
}
