package io.prefixlog.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into lines, for the commands that read JSONL files (lookup files, delta
 * dumps). The stream is read in 64 KiB chunks and each line is handed over as bytes in a reused
 * buffer, not as a String: those files run to millions of lines, and their readers parse the bytes
 * directly. A line ends at {@code \n}; a {@code \r} before it is dropped, and a last line without a
 * terminator is still a line.
 */
public final class LineSplitter {
  private static final int CHUNK = 1 << 16;

  private LineSplitter() {}

  /** Receives each line of the stream, in order. */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param line the line, from index 0 of a buffer that is reused for the next line: copy what
     *     must outlive the call
     * @param length the line's length, without its terminator
     * @param number the line's number, from 1
     * @param offset where the line starts in the stream, in bytes
     */
    void line(byte[] line, int length, long number, long offset) throws IOException;
  }

  /**
   * Reads the stream to its end, handing each line to the handler.
   *
   * @return the bytes read
   */
  public static long split(InputStream in, Handler handler) throws IOException {
    byte[] chunk = new byte[CHUNK];
    byte[] line = new byte[CHUNK];
    int lineLength = 0;
    long lineNumber = 0;
    long lineStart = 0;
    long position = 0;
    int n;
    while ((n = in.read(chunk)) > 0) {
      int from = 0;
      for (int i = 0; i < n; i++) {
        if (chunk[i] != '\n') {
          continue;
        }
        int part = i - from;
        line = ensure(line, lineLength + part);
        System.arraycopy(chunk, from, line, lineLength, part);
        lineLength += part;
        deliver(line, lineLength, ++lineNumber, lineStart, handler);
        lineStart = position + i + 1;
        lineLength = 0;
        from = i + 1;
      }
      int rest = n - from;
      line = ensure(line, lineLength + rest);
      System.arraycopy(chunk, from, line, lineLength, rest);
      lineLength += rest;
      position += n;
    }
    if (lineLength > 0) {
      deliver(line, lineLength, ++lineNumber, lineStart, handler);
    }
    return position;
  }

  private static void deliver(byte[] line, int length, long number, long offset, Handler handler)
      throws IOException {
    int withoutCr = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
    handler.line(line, withoutCr, number, offset);
  }

  private static byte[] ensure(byte[] buffer, int size) {
    return size <= buffer.length
        ? buffer
        : Arrays.copyOf(buffer, Math.max(size, buffer.length * 2));
  }
}
