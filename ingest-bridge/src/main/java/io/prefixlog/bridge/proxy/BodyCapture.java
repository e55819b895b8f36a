package io.prefixlog.bridge.proxy;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;

/**
 * The first {@code limit} bytes of a request body, copied as its chunks pass; counts every byte
 * seen. Sized from {@code Content-Length} when known, so a body is copied once.
 */
final class BodyCapture {
  private final long limit;
  private byte[] bytes;
  private int length;
  private long seen;

  BodyCapture(long limit, long expected) {
    this.limit = limit;
    int initial = expected >= 0 ? (int) Math.min(expected, limit) : (int) Math.min(8192, limit);
    this.bytes = new byte[initial];
  }

  void append(Buffer chunk) {
    int n = chunk.length();
    seen += n;
    int room = (int) Math.min(n, limit - length);
    if (room <= 0) {
      return;
    }
    if (length + room > bytes.length) {
      long grown = Math.max((long) bytes.length * 2, (long) length + room);
      bytes = Arrays.copyOf(bytes, (int) Math.min(grown, limit));
    }
    chunk.getBytes(0, room, bytes, length);
    length += room;
  }

  /** True once the capture limit is reached. */
  boolean full() {
    return length >= limit;
  }

  /** True when more bytes passed than were kept. */
  boolean truncated() {
    return seen > length;
  }

  byte[] bytes() {
    return bytes;
  }

  int length() {
    return length;
  }

  long seen() {
    return seen;
  }

  byte[] toByteArray() {
    return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
  }
}
