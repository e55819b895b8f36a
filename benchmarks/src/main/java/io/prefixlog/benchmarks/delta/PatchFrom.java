package io.prefixlog.benchmarks.delta;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;

/**
 * The reference: {@code zstd -3 --patch-from=<previous body>} in process. zstd-jni loads the
 * previous body as a raw-content dictionary (it has no dictionary magic, so zstd takes it as
 * content), which is what the CLI's {@code --patch-from} does with its reference file; the frame
 * stores the content size and, unlike the CLI, no checksum (4 bytes). The first turn of a session
 * has no reference and is plain {@code zstd -3}.
 */
final class PatchFrom implements AutoCloseable {
  static final int LEVEL = 3;

  private final ZstdCompressCtx withReference = context();
  private final ZstdCompressCtx plain = context();
  private byte[] out = new byte[64 * 1024];

  /** Compressed size of {@code body} against {@code previous} (null: no reference). */
  int size(byte[] previous, byte[] body) {
    int bound = Math.toIntExact(Zstd.compressBound(body.length));
    if (out.length < bound) {
      out = new byte[bound];
    }
    if (previous == null) {
      return plain.compressByteArray(out, 0, out.length, body, 0, body.length);
    }
    withReference.loadDict(previous);
    return withReference.compressByteArray(out, 0, out.length, body, 0, body.length);
  }

  private static ZstdCompressCtx context() {
    return new ZstdCompressCtx().setLevel(LEVEL).setContentSize(true).setChecksum(false);
  }

  @Override
  public void close() {
    withReference.close();
    plain.close();
  }
}
