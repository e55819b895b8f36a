package io.prefixlog.bridge.proxy;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap the request bodies of the exchanges in flight hold together, bounded ({@code
 * PREFIXLOG_PROXY_CAPTURE_MEMORY}). A captured body stays on the heap from its first byte until its
 * exchange ends (the event carries the response's usage), so many large bodies against a slow
 * engine add up, and nothing else bounds them: the publisher's queue only counts an exchange once
 * it ended. Each {@link BodyCapture} reserves what its array grows by and gives it all back when
 * its exchange hands the event off; a growth the bound refuses makes the capture let its body go
 * (counted dropped, {@code capture_memory}) while the exchange itself is proxied as always.
 *
 * <p>A streamed response collected whole for an HTTP/1.0 client is reserved here too, chunk by
 * chunk, until it is written: such clients are as many as connect, and each may collect up to 64
 * MiB. A chunk the bound refuses ends that exchange with a 502.
 *
 * <p>Shared by the event loops: one compare-and-set per growth of a body's array (a handful per
 * body, as it doubles), nothing per chunk.
 */
final class CaptureMemory {
  private final long limit;
  private final AtomicLong used = new AtomicLong();

  CaptureMemory(long limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("capture memory must be positive, got " + limit);
    }
    this.limit = limit;
  }

  /** Takes {@code bytes} from the bound, or nothing and false when they do not fit. */
  boolean tryReserve(long bytes) {
    while (true) {
      long now = used.get();
      if (now + bytes > limit) {
        return false;
      }
      if (used.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Gives back {@code bytes} an earlier {@link #tryReserve} took. */
  void release(long bytes) {
    used.addAndGet(-bytes);
  }

  /** Bytes reserved now. */
  long used() {
    return used.get();
  }

  long limit() {
    return limit;
  }
}
