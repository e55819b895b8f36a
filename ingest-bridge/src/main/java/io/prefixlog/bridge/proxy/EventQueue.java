package io.prefixlog.bridge.proxy;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded hand-off between the event loops and the publisher thread. {@link #offer} never
 * blocks: beyond the event or byte bound it refuses, and the caller counts the drop.
 */
final class EventQueue {
  private final LinkedBlockingQueue<Outbound> queue;
  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();

  EventQueue(int maxEvents, long maxBytes) {
    this.queue = new LinkedBlockingQueue<>(maxEvents);
    this.maxBytes = maxBytes;
  }

  /** Adds the item, or returns false at once when the queue is full. */
  boolean offer(Outbound item) {
    long size = item.bytes();
    if (bytes.addAndGet(size) > maxBytes) {
      bytes.addAndGet(-size);
      return false;
    }
    if (!queue.offer(item)) {
      bytes.addAndGet(-size);
      return false;
    }
    return true;
  }

  /** The next item, waiting at most {@code millis}; null when none came. */
  Outbound poll(long millis) throws InterruptedException {
    Outbound item = queue.poll(millis, TimeUnit.MILLISECONDS);
    if (item != null) {
      bytes.addAndGet(-item.bytes());
    }
    return item;
  }

  int depth() {
    return queue.size();
  }

  long bytes() {
    return bytes.get();
  }
}
