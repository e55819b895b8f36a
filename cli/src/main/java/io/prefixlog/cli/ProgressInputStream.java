package io.prefixlog.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Advances a {@link Progress} bar by the bytes read through it. Wrap the file itself, below any
 * decompression, so that the bar counts the bytes of the file, whose size is the bar's total.
 */
public final class ProgressInputStream extends FilterInputStream {
  private final Progress progress;
  private long position;

  /**
   * @param start the bytes already done before this stream (the files read before it), where the
   *     bar goes on from
   */
  public ProgressInputStream(InputStream in, Progress progress, long start) {
    super(in);
    this.progress = progress;
    this.position = start;
  }

  /** {@code start} plus the bytes read so far. */
  public long position() {
    return position;
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b >= 0) {
      progress.update(++position);
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = super.read(b, off, len);
    if (n > 0) {
      position += n;
      progress.update(position);
    }
    return n;
  }
}
