package io.prefixlog.benchmarks.delta;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.util.List;

/**
 * What a producer's compressed batches store: records concatenated in produce order, cut into
 * independent groups of at most {@value #GROUP_BYTES} bytes of input (a record larger than that is
 * a group of its own), each group compressed with zstd -3 without dictionary.
 */
final class ProducerBatches {
  static final int GROUP_BYTES = 64 * 1024;

  private ProducerBatches() {}

  /** Total compressed bytes of the records' groups. */
  static long compressedSize(List<byte[]> records) {
    try (ZstdCompressCtx ctx =
        new ZstdCompressCtx().setLevel(PatchFrom.LEVEL).setContentSize(true).setChecksum(false)) {
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
}
