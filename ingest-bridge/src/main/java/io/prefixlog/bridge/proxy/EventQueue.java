package io.prefixlog.bridge.proxy;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded hand-off between the event loops and the publisher thread. {@link #offer} never
 * blocks: beyond the event or byte bound it refuses, and the caller counts the drop. Each item
 * keeps the time it was offered: the publisher measures the queue's wait and the capture-to-ack
 * latency from it.
 */
final class EventQueue {
  /** An item and when it was offered ({@link System#nanoTime()}). */
  record Queued(Outbound item, long offeredNanos) {}

  private final LinkedBlockingQueue<Queued> queue;
  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();

  EventQueue(int maxEvents, long maxBytes) {
    this.queue = new LinkedBlockingQueue<>(maxEvents);
    this.maxBytes = maxBytes;
  }

  /** Bounded by {@code PREFIXLOG_PROXY_QUEUE_EVENTS} and {@code PREFIXLOG_PROXY_QUEUE_BYTES}. */
  static EventQueue of(PublishConfig publish) {
    return new EventQueue(publish.queueEvents(), publish.queueBytes());
  }

  /** Adds the item, or returns false at once when the queue is full. */
  boolean offer(Outbound item) {
    long size = item.bytes();
    if (bytes.addAndGet(size) > maxBytes) {
      bytes.addAndGet(-size);
      return false;
    }
    if (!queue.offer(new Queued(item, System.nanoTime()))) {
      bytes.addAndGet(-size);
      return false;
    }
    return true;
  }

  /** The next item, waiting at most {@code millis}; null when none came. */
  Queued poll(long millis) throws InterruptedException {
    Queued queued = queue.poll(millis, TimeUnit.MILLISECONDS);
    if (queued != null) {
      bytes.addAndGet(-queued.item().bytes());
    }
    return queued;
  }

  int depth() {
    return queue.size();
  }

  long bytes() {
    return bytes.get();
  }
}
