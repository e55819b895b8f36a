package io.prefixlog.bridge.kv;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One source's received messages, waiting for its sequencer thread: bounded by bytes, not by count.
 * The receive thread {@linkplain #reserve reserves} each frame's bytes before it keeps the frame
 * and the sequencer thread {@linkplain #release releases} them once it has handled the message, so
 * what the two threads hold of the source's messages never exceeds {@code maxBytes}. A message that
 * does not fit is not kept: the caller drops it, and its number becomes a gap that the next message
 * shows and replay covers, as when the engine's PUB drops one.
 *
 * <p>A connection event costs nothing and is kept once until taken: one catch-up after the latest
 * connection covers every connection made while it waited.
 */
final class ReceiveBuffer {
  /**
   * What a message costs beyond its frames' bytes (its list, the arrays' headers, the queue's
   * node), so that a flood of empty messages is bounded too.
   */
  static final long MESSAGE_OVERHEAD = 256;

  /** A waiting item: a message, or the news of a completed handshake with the engine. */
  sealed interface Item permits Message, Connected {}

  /** A message's frames (at most the first few) and the bytes reserved for it. */
  record Message(List<byte[]> frames, long bytes) implements Item {
    Message {
      frames = List.copyOf(frames);
    }
  }

  /** A handshake with the engine completed: catch up. */
  enum Connected implements Item {
    INSTANCE
  }

  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicBoolean connectedWaiting = new AtomicBoolean();
  private final BlockingQueue<Item> items = new LinkedBlockingQueue<>();

  ReceiveBuffer(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** Takes {@code n} bytes of the budget, or returns false and takes none when they do not fit. */
  boolean reserve(long n) {
    if (bytes.addAndGet(n) > maxBytes) {
      bytes.addAndGet(-n);
      return false;
    }
    return true;
  }

  /** Gives back bytes {@linkplain #reserve reserved} before. */
  void release(long n) {
    bytes.addAndGet(-n);
  }

  /** Queues a message whose {@code bytes} are reserved; the taker releases them. */
  void put(Message message) {
    items.add(Objects.requireNonNull(message, "message"));
  }

  /** Queues a catch-up, unless one is waiting already. */
  void connected() {
    if (connectedWaiting.compareAndSet(false, true)) {
      items.add(Connected.INSTANCE);
    }
  }

  /** The next item, waiting at most {@code timeout}; {@code null} when none came. */
  Item poll(long timeout, TimeUnit unit) throws InterruptedException {
    Item item = items.poll(timeout, unit);
    if (item == Connected.INSTANCE) {
      connectedWaiting.set(false);
    }
    return item;
  }

  /** The bytes reserved now: messages kept, waiting or being handled. */
  long bytes() {
    return bytes.get();
  }

  long maxBytes() {
    return maxBytes;
  }
}
