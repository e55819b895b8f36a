package io.prefixlog.benchmarks.delta;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.admin.TopicCreator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * What the deltas topic stores of a producer's batches: records concatenated in produce order, cut
 * into independent groups of at most {@value #GROUP_BYTES} bytes of input (a record larger than
 * that is a group of its own), each group compressed without dictionary at the zstd level the
 * stream app has the broker store {@code session.deltas} at ({@link #LEVEL}).
 */
public final class ProducerBatches {
  static final int GROUP_BYTES = 64 * 1024;

  /** The zstd level {@code session.deltas} is stored at with the stream app's defaults. */
  static final int LEVEL = storedDeltaLevel();

  private ProducerBatches() {}

  /** Total compressed bytes of the records' groups at {@link #LEVEL}. */
  static long compressedSize(List<byte[]> records) {
    return compressedSize(records, LEVEL);
  }

  /**
   * Total compressed bytes of the records' groups: each group of at most {@value #GROUP_BYTES}
   * bytes, or a larger record alone, compressed at zstd {@code level}.
   */
  public static long compressedSize(List<byte[]> records, int level) {
    try (ZstdCompressCtx ctx =
        new ZstdCompressCtx().setLevel(level).setContentSize(true).setChecksum(false)) {
      byte[] group = new byte[GROUP_BYTES];
      byte[] out = new byte[Math.toIntExact(Zstd.compressBound(GROUP_BYTES))];
      int filled = 0;
      long total = 0;
      for (byte[] record : records) {
        if (filled > 0 && filled + record.length > GROUP_BYTES) {
          total += ctx.compressByteArray(out, 0, out.length, group, 0, filled);
          filled = 0;
        }
        if (record.length > GROUP_BYTES) {
          byte[] alone = ctx.compress(record);
          total += alone.length;
          continue;
        }
        System.arraycopy(record, 0, group, filled, record.length);
        filled += record.length;
      }
      if (filled > 0) {
        total += ctx.compressByteArray(out, 0, out.length, group, 0, filled);
      }
      return total;
    }
  }

  private static int storedDeltaLevel() {
    StreamAppConfig config = StreamAppConfig.defaults(Map.of());
    for (NewTopic topic : TopicCreator.plan(config)) {
      if (topic.name().equals(config.topics().sessionDeltas().name())) {
        return Integer.parseInt(topic.configs().get(TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG));
      }
    }
    throw new IllegalStateException("the stream app plans no deltas topic");
  }
}
