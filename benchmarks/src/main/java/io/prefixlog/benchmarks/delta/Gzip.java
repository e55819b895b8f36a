package io.prefixlog.benchmarks.delta;

import java.util.zip.Deflater;

/**
 * Size of {@code gzip -6} of a body: raw deflate at level 6 plus the fixed gzip framing that {@link
 * java.util.zip.GZIPOutputStream} writes (10-byte header, 8-byte CRC-32 and length trailer).
 */
final class Gzip implements AutoCloseable {
  private static final int FRAMING_BYTES = 10 + 8;

  private final Deflater deflater = new Deflater(6, true);
  private final byte[] buffer = new byte[64 * 1024];

  int size(byte[] body) {
    deflater.reset();
    deflater.setInput(body);
    deflater.finish();
    long total = 0;
    while (!deflater.finished()) {
      total += deflater.deflate(buffer);
    }
    return Math.toIntExact(total + FRAMING_BYTES);
  }

  @Override
  public void close() {
    deflater.end();
  }
}
