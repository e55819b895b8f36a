package io.prefixlog.tools.reconstruct;

import io.prefixlog.cli.Progress;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.rebuild.TurnKey;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads the deltas topic from the beginning up to the end offsets taken at the start, then stops
 * ({@link TopicScan}: every partition assigned, no consumer group, {@code read_committed} so that
 * aborted transactions of the exactly-once stream app are never seen, fetch sizes for records of up
 * to the capture limit). Values go to a {@link Spool} and are parsed when their session is rebuilt.
 */
final class TopicReader {
  /**
   * The largest delta record: a keyframe of a body at the capture limit (16 MiB,
   * docs/design.md#topics), doubled for JSON escaping or base64, plus 1 MiB of metadata, as the
   * stream app's {@code StreamAppConfig.maxRecordBytes()} at its defaults.
   */
  static final int MAX_RECORD_BYTES = 2 * 16 * 1024 * 1024 + 1024 * 1024;

  private TopicReader() {}

  /** What was read. */
  record Stats(int partitions, long records, long tombstones, long bytes) {}

  /** The read failed: the message says why and what to do. */
  static final class ReadException extends Exception {
    ReadException(String message, Throwable cause) {
      super(message, cause);
    }
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
    long[] counts = new long[3]; // records, tombstones, bytes
    int partitions;
    try {
      partitions =
          TopicScan.readToEnd(
              bootstrap,
              topic,
              "prefixlog-reconstruct",
              MAX_RECORD_BYTES,
              "--file reads a dump",
              progress,
              record -> {
                counts[0]++;
                if (record.value() == null) {
                  counts[1]++;
                } else {
                  counts[2] += record.value().length;
                }
                String location = "partition " + record.partition() + " offset " + record.offset();
                Optional<TurnKey> key = TurnKey.parse(record.key());
                if (key.isPresent() && record.value() != null) {
                  long offset = spool.append(record.value());
                  rebuilder.add(key.get(), spool.jsonAt(offset, record.value().length), location);
                } else {
                  // Tombstones, and records whose key is unusable (reported, or filed by value).
                  rebuilder.addTopicRecord(record.key(), record.value(), location);
                }
              });
    } catch (TopicScan.ScanException e) {
      throw new ReadException(e.getMessage(), e.getCause());
    }
    spool.finishWriting();
    return new Stats(partitions, counts[0], counts[1], counts[2]);
  }
}
