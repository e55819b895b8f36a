package io.prefixlog.benchmarks.agent;

import io.prefixlog.benchmarks.delta.ProducerBatches;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Utils;

/**
 * What a compacted output topic stores for a stream of records, before any broker sees them: the
 * records of each partition (the session's, as the stream app partitions its outputs) in produce
 * order, cut into producer batches of at most 64 KiB of keys and values ({@link ProducerBatches}),
 * each compressed with zstd at the level the topic is stored at (the broker recompresses the stream
 * app's lz4 batches to it, batch for batch). Record framing (a few bytes per record) is left out;
 * the end-to-end run measures the log segments themselves.
 */
final class TopicBytes {
  static final int BATCH_BYTES = 64 * 1024;
  private final int partitions;
  private final int level;
  private final List<List<byte[]>> records = new ArrayList<>();
  private long count;

  /**
   * @param level the zstd level the topic is stored at
   */
  TopicBytes(int partitions, int level) {
    this.partitions = partitions;
    this.level = level;
    for (int p = 0; p < partitions; p++) {
      records.add(new ArrayList<>());
    }
  }

  /** Adds one record, keyed {@code session_key/…}, partitioned by its session. */
  void add(String key, byte[] value) {
    int slash = key.indexOf('/');
    String session = slash < 0 ? key : key.substring(0, slash);
    int partition =
        Utils.toPositive(Utils.murmur2(session.getBytes(StandardCharsets.UTF_8))) % partitions;
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] record = new byte[k.length + value.length];
    System.arraycopy(k, 0, record, 0, k.length);
    System.arraycopy(value, 0, record, k.length, value.length);
    records.get(partition).add(record);
    count++;
  }

  long records() {
    return count;
  }

  /** The compressed bytes of every batch of every partition. */
  long compressedBytes() {
    long total = 0;
    for (List<byte[]> partition : records) {
      total += ProducerBatches.compressedSize(partition, level);
    }
    return total;
  }
}
