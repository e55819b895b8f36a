package io.prefixlog.core.chunk;

import java.util.Arrays;

/** A growable byte buffer; not thread-safe. */
final class ByteSink {
  private byte[] buf;
  private int size;

  ByteSink(int capacity) {
    buf = new byte[Math.max(16, capacity)];
  }

  void write(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  void write(byte[] bytes) {
    write(bytes, 0, bytes.length);
  }

  void write(byte[] bytes, int offset, int length) {
    ensure(length);
    System.arraycopy(bytes, offset, buf, size, length);
    size += length;
  }

  /** Appends {@code [start, end)} of another sink. */
  void copy(ByteSink from, int start, int end) {
    write(from.buf, start, end - start);
  }

  /**
   * The buffer, with room for at least {@code more} bytes after {@link #size()}; write into it and
   * then call {@link #setSize}.
   */
  byte[] reserve(int more) {
    ensure(more);
    return buf;
  }

  /** The buffer itself, whose first {@link #size()} bytes are those written. */
  byte[] buffer() {
    return buf;
  }

  void setSize(int size) {
    this.size = size;
  }

  /** Whether the bytes written so far equal {@code other}. */
  boolean contentEquals(byte[] other) {
    return Arrays.equals(buf, 0, size, other, 0, other.length);
  }

  int size() {
    return size;
  }

  void reset() {
    size = 0;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  /** {@code [aStart, aEnd)} followed by {@code [bStart, bEnd)}, as a new array. */
  byte[] concat(int aStart, int aEnd, int bStart, int bEnd) {
    byte[] out = new byte[(aEnd - aStart) + (bEnd - bStart)];
    System.arraycopy(buf, aStart, out, 0, aEnd - aStart);
    System.arraycopy(buf, bStart, out, aEnd - aStart, bEnd - bStart);
    return out;
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }
}
