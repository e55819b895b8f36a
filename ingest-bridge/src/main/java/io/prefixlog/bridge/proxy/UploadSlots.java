package io.prefixlog.bridge.proxy;

import java.util.ArrayDeque;

/**
 * How many of one event loop's engine connections exchanges whose request body is still arriving
 * may hold: half the loop's pool, at least one. A body longer than the proxy reads before it
 * connects goes to the engine as it arrives, so its exchange holds an engine connection for as long
 * as its client takes to send it; clients that each trickle a byte in time for the idle timeout
 * held the whole pool, and every other request waited behind them. Bounded, the other half stays
 * for requests whose body is in (all small ones, read whole first) and for bodies that finished
 * arriving.
 *
 * <p>Bounding was chosen over reading every large body whole before connecting: that would hold up
 * to the capture limit per exchange on the heap and delay every large upload by its own transfer
 * time. An exchange that finds no slot reads its body ahead meanwhile (up to the capture limit,
 * inside the capture-memory bound, as it does for a session key), so its client is measured against
 * the minimum body rate while it waits, and a slow one is closed rather than queued.
 *
 * <p>One instance per event loop, used on that loop only.
 */
final class UploadSlots {
  private final int max;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int taken;

  UploadSlots(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("upload slots must be at least 1, got " + max);
    }
    this.max = max;
  }

  /** Half of a loop's share of the engine connections, at least one. */
  static UploadSlots forPool(int connectionsPerLoop) {
    return new UploadSlots(Math.max(1, connectionsPerLoop / 2));
  }

  /** Takes a slot, or nothing and false when all are taken. */
  boolean tryTake() {
    if (taken < max) {
      taken++;
      return true;
    }
    return false;
  }

  /**
   * {@code retry} runs once a slot is given back (in the order they waited); it calls {@link
   * #tryTake} again, or does not when its exchange no longer needs one.
   */
  void await(Runnable retry) {
    waiting.add(retry);
  }

  /**
   * Forgets {@code retry}, whose exchange ended while it waited: a waiter holds its exchange (and
   * the body it read ahead), which must not stay on the heap until some slot is given back.
   */
  void cancel(Runnable retry) {
    waiting.remove(retry);
  }

  /** Exchanges waiting for a slot. */
  int waiting() {
    return waiting.size();
  }

  /** Gives back a slot {@link #tryTake} took, and lets the exchanges waiting for one retry. */
  void give() {
    taken--;
    while (taken < max && !waiting.isEmpty()) {
      waiting.poll().run();
    }
  }

  int taken() {
    return taken;
  }
}
