package io.prefixlog.tools.ui;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads records of the delta topic by partition and offset, as the index located them: a turn page
 * reads its turn and the bases it needs, never the topic. One consumer, used by one request at a
 * time (a consumer is not thread-safe, and a fetch by offset takes milliseconds).
 */
final class RecordFetcher implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;

  RecordFetcher(String bootstrap, String topic, int maxRecordBytes) {
    this.topic = topic;
    Map<String, Object> config = new HashMap<>();
    IndexFollower.config(bootstrap, "prefixlog-ui-fetch", maxRecordBytes)
        .forEach((k, v) -> config.put((String) k, v));
    // One turn at a time: no need to pull hundreds of records behind it. The follower's fetch
    // sizes (the largest record) would make every seek fetch up to 33 MiB of the records after
    // it, and decompress them, to use one: seconds per turn page over a large topic. The broker
    // returns the first batch whole even when it is larger than these, so big records still come.
    config.put("max.poll.records", "50");
    config.put("max.partition.fetch.bytes", Integer.toString(64 * 1024));
    config.put("fetch.max.bytes", Integer.toString(64 * 1024));
    // After each poll the consumer already has the next fetch in flight; a seek waits for it, and
    // the broker holds a fetch that finds nothing new for fetch.max.wait.ms (500 ms by default).
    config.put("fetch.max.wait.ms", "5");
    this.consumer = new KafkaConsumer<>(config);
  }

  /** One located record: its key and value (null for a tombstone). */
  record Located(String key, byte[] value) {}

  /**
   * The records at {@code offsets} of {@code partition}; an offset that is gone (compacted away,
   * beyond retention) is missing from the result.
   *
   * @throws FetchException when the broker does not answer in time
   */
  synchronized Map<Long, Located> fetch(int partition, List<Long> offsets) throws FetchException {
    TopicPartition tp = new TopicPartition(topic, partition);
    consumer.assign(List.of(tp));
    Map<Long, Located> found = new HashMap<>();
    for (long offset : offsets.stream().sorted().distinct().toList()) {
      if (found.containsKey(offset)) {
        continue;
      }
      fetchOne(tp, offset, offsets, found).ifPresent(r -> found.put(offset, r));
    }
    return found;
  }

  private Optional<Located> fetchOne(
      TopicPartition tp, long offset, List<Long> wanted, Map<Long, Located> found)
      throws FetchException {
    consumer.seek(tp, offset);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      List<ConsumerRecord<String, byte[]>> records =
          consumer.poll(Duration.ofMillis(200)).records(tp);
      if (records.isEmpty()) {
        if (consumer.position(tp) > offset) {
          return Optional.empty(); // skipped: compacted away or aborted
        }
        continue;
      }
      Located hit = null;
      for (ConsumerRecord<String, byte[]> r : records) {
        if (r.offset() == offset) {
          hit = new Located(r.key(), r.value());
        } else if (wanted.contains(r.offset())) {
          found.put(r.offset(), new Located(r.key(), r.value()));
        }
      }
      if (hit != null || records.get(records.size() - 1).offset() >= offset) {
        return Optional.ofNullable(hit);
      }
    }
    throw new FetchException(
        "no answer from the broker within "
            + TIMEOUT.toSeconds()
            + " s reading "
            + tp
            + " at "
            + offset);
  }

  /** The broker did not answer. */
  static final class FetchException extends Exception {
    FetchException(String message) {
      super(message);
    }
  }

  @Override
  public synchronized void close() {
    consumer.close();
  }
}
