package io.prefixlog.tools.topic;

import io.prefixlog.cli.Causes;
import io.prefixlog.cli.Progress;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
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
 * Reads a whole topic once, committed records only, from the beginning up to the end offsets taken
 * when the read starts (records written later are not part of it), with a progress bar. The tools
 * that read an output topic ({@code reconstruct}, {@code analyze}) share it.
 */
public final class TopicScan {
  /** How long one Kafka call may take before the read fails with a clear message. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** How long the read may go without any partition moving before it fails. */
  public static final Duration STALL = Duration.ofSeconds(60);

  private TopicScan() {}

  /**
   * Assigns {@code consumer} every partition of {@code topic}, as the broker lists them now.
   *
   * @return the partitions assigned, to seek them
   */
  public static List<TopicPartition> assignAll(Consumer<?, ?> consumer, String topic) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(info -> new TopicPartition(topic, info.partition()))
            .toList();
    consumer.assign(partitions);
    return partitions;
  }

  /** Receives each record of the read, in partition order. */
  @FunctionalInterface
  public interface RecordHandler {
    void accept(ConsumerRecord<String, byte[]> record) throws IOException;
  }

  /** The topic could not be read: the message says why and what to try. */
  public static final class ScanException extends Exception {
    public ScanException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Reads {@code topic} to its end offsets.
   *
   * @param clientId the consumer's client id (shows in the broker's logs)
   * @param maxFetchBytes the largest record expected, so that one comes in one fetch
   * @param alternative what the user can do instead when Kafka is unreachable (an option hint)
   * @return the number of partitions read
   * @throws ScanException when Kafka cannot be reached, the topic does not exist, or the read
   *     stalls
   * @throws IOException when the handler fails to store a record
   */
  public static int readToEnd(
      String bootstrap,
      String topic,
      String clientId,
      int maxFetchBytes,
      String alternative,
      Progress progress,
      RecordHandler handler)
      throws ScanException, IOException {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(consumerConfig(bootstrap, clientId, maxFetchBytes))) {
      List<PartitionInfo> infos;
      try {
        infos = consumer.partitionsFor(topic, TIMEOUT);
      } catch (TimeoutException e) {
        throw new ScanException(
            "cannot reach Kafka at "
                + bootstrap
                + " within "
                + TIMEOUT.toSeconds()
                + " s: is a broker running there? (--bootstrap picks another; "
                + alternative
                + ")",
            e);
      }
      if (infos == null || infos.isEmpty()) {
        throw new ScanException(
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
          handler.accept(record);
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
          throw new ScanException(
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
      return partitions.size();
    } catch (TimeoutException e) {
      throw new ScanException(
          "Kafka at " + bootstrap + " did not answer within " + TIMEOUT.toSeconds() + " s", e);
    } catch (KafkaException e) {
      throw new ScanException(
          "cannot read " + topic + " at " + bootstrap + ": " + Causes.describe(e), e);
    }
  }

  static Properties consumerConfig(String bootstrap, String clientId, int maxFetchBytes) {
    Properties p = KafkaClients.committedReader(bootstrap, clientId);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // Soft limits (a larger first batch is still returned), sized so that a full-size record
    // comes in one fetch.
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(maxFetchBytes));
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(2 * maxFetchBytes));
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
    return p;
  }
}
