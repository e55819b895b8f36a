package io.prefixlog.tools.analyze;

import io.prefixlog.cli.Progress;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;

/**
 * Reads the lookups topic from the beginning up to the end offsets taken at the start, then stops,
 * as {@code reconstruct} reads the deltas topic ({@link TopicScan}: every partition assigned, no
 * consumer group, {@code read_committed} so that aborted transactions of the exactly-once stream
 * app are never seen). Records go to {@link Trace#accept} in the order of their partitions, which
 * resolves version 2 records and applies compaction's rule (the latest record of a key wins, a
 * tombstone removes it).
 */
final class LookupTopic {
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

  /**
   * Reads the topic into the trace.
   *
   * @throws ReadException when Kafka cannot be reached, the topic does not exist, or the read
   *     stalls
   */
  static Stats read(String bootstrap, String topic, Trace trace, Progress progress)
      throws ReadException {
    long[] counts = new long[2]; // records, bytes
    try {
      int partitions =
          TopicScan.readToEnd(
              bootstrap,
              topic,
              "prefixlog-analyze",
              MAX_FETCH_BYTES,
              "--file reads files",
              progress,
              record -> {
                counts[0]++;
                if (record.value() == null) {
                  trace.accept(LookupParser.Parsed.tombstone(record.key()));
                  return;
                }
                counts[1] += record.value().length;
                try {
                  trace.accept(LookupParser.parseValue(record.value()).withKey(record.key()));
                } catch (LookupParser.BadLineException e) {
                  trace.bad(
                      topic + " partition " + record.partition() + " offset " + record.offset(),
                      e.getMessage());
                }
              });
      return new Stats(partitions, counts[0], counts[1]);
    } catch (TopicScan.ScanException e) {
      throw new ReadException(e.getMessage(), e.getCause());
    } catch (IOException e) {
      throw new IllegalStateException("the trace keeps records in memory: no I/O to fail", e);
    }
  }
}
