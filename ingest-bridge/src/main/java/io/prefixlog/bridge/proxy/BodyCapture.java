package io.prefixlog.bridge.proxy;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;

/**
 * The first {@code limit} bytes of a request body, copied as its chunks pass; counts every byte
 * seen.
 *
 * <p>Memory follows the bytes that arrived, never the length a header announced: a head saying 16
 * MiB costs nothing until the body comes (400 connections that sent only such heads took 4.9 GB
 * when the array was sized from {@code Content-Length}). The array is allocated at the first body
 * byte ({@value #INITIAL_BYTES} bytes, or the announced length when smaller) and doubles as the
 * body arrives, up to the announced length, so a body of known length ends in an array of exactly
 * its size (no copy when handed out) and a body within the first allocation is copied once.
 *
 * <p>Every growth of the array is reserved from the {@link CaptureMemory} the exchanges in flight
 * share. When the bound refuses one, the capture lets its body go: the array is dropped and its
 * reservation given back, later chunks are only counted, and {@link #shed()} says so, for the
 * exchange to count its event dropped rather than publish a body it no longer has. The reservation
 * is given back by {@link #release()} when the exchange hands its event off.
 */
final class BodyCapture {
  /** The first allocation, made when the first body byte arrives (nothing before). */
  static final int INITIAL_BYTES = 64 << 10;

  private static final byte[] NONE = new byte[0];

  private final long limit;
  private final long expected;
  private final CaptureMemory memory;
  private byte[] bytes;
  private int length;
  private long seen;
  private long reserved;
  private boolean shed;
  private boolean released;

  BodyCapture(long limit, long expected, CaptureMemory memory) {
    this.limit = limit;
    this.expected = expected;
    this.memory = memory;
    this.bytes = NONE;
  }

  /** The most the array needs: the limit, or the announced length when smaller. */
  private long cap() {
    return expected >= 0 ? Math.min(expected, limit) : limit;
  }

  void append(Buffer chunk) {
    int n = chunk.length();
    seen += n;
    int room = (int) Math.min(n, limit - length);
    if (room <= 0 || shed || released) {
      return;
    }
    if (length + room > bytes.length) {
      long needed = (long) length + room;
      long grown = Math.max(Math.max((long) bytes.length * 2, INITIAL_BYTES), needed);
      long cap = Math.max(cap(), needed); // a body longer than announced still fits
      int size = (int) Math.min(Math.min(grown, cap), limit);
      if (!memory.tryReserve(size - bytes.length)) {
        letGo();
        return;
      }
      reserved += size - bytes.length;
      bytes = Arrays.copyOf(bytes, size);
    }
    chunk.getBytes(0, room, bytes, length);
    length += room;
  }

  /** Lets the body go: the bound of the captures in flight refused its next growth. */
  private void letGo() {
    shed = true;
    bytes = NONE;
    length = 0;
    memory.release(reserved);
    reserved = 0;
  }

  /** True when the body was let go for the bound of the captures in flight. */
  boolean shed() {
    return shed;
  }

  /**
   * Gives the array's reservation back when the exchange hands its event off. For good: a chunk
   * that still arrives after it (a request body still streaming when its exchange failed) is only
   * counted, so that a finished exchange can never hold the bound again.
   */
  void release() {
    memory.release(reserved);
    reserved = 0;
    released = true;
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
