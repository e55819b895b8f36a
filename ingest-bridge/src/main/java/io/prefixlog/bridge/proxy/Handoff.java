package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.Counter;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Where an exchange's end goes: its capture to the sink (the publisher's queue, which never blocks;
 * the warm-up's encode-and-discard), or, when its body was let go for the capture bound, a counted
 * drop ({@code capture_memory}). Counts the exchanges in flight, all event loops together, from
 * {@link #started} to either end. Thread-safe.
 */
final class Handoff {
  private final AtomicInteger inFlight;
  private final Consumer<CapturedExchange> sink;
  private final Counter shed;

  Handoff(AtomicInteger inFlight, Consumer<CapturedExchange> sink, ProxyMetrics metrics) {
    this.inFlight = inFlight;
    this.sink = sink;
    this.shed = metrics.dropped(ProxyMetrics.CAPTURE_MEMORY_DROP);
  }

  /** An exchange began. */
  void started() {
    inFlight.incrementAndGet();
  }

  /** An exchange is over: its capture goes to the sink. */
  void completed(CapturedExchange captured) {
    inFlight.decrementAndGet();
    sink.accept(captured);
  }

  /** An exchange ended whose body was let go for the capture bound: counted, not published. */
  void shed() {
    inFlight.decrementAndGet();
    shed.increment();
  }
}
