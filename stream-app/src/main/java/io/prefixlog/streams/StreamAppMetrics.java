package io.prefixlog.streams;

import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.metrics.MetricsRegistry;
import java.util.concurrent.atomic.LongAdder;

/** The stream app's metrics, one set per app instance, shared by all its tasks. */
public final class StreamAppMetrics {
  private final MetricsRegistry registry;
  private final LongAdder deltas;
  private final LongAdder bodyBytesIn;
  private final LongAdder recordBytesOut;
  private final LongAdder liveSessions = new LongAdder();
  private final LongAdder sessionsEvicted;
  private final LongAdder duplicates;
  private final LongAdder threadFailures;

  public StreamAppMetrics(MetricsRegistry registry) {
    this.registry = registry;
    this.deltas =
        registry.counter(
            "prefixlog_turns_total", "Delta records emitted, by kind.", "kind", "delta");
    this.bodyBytesIn =
        registry.counter("prefixlog_body_bytes_in_total", "Request body bytes encoded.");
    this.recordBytesOut =
        registry.counter(
            "prefixlog_record_bytes_out_total",
            "Bytes of delta record JSON emitted (uncompressed).");
    this.sessionsEvicted =
        registry.counter(
            "prefixlog_sessions_evicted_total", "Idle sessions whose bases were evicted.");
    this.duplicates =
        registry.counter(
            "prefixlog_duplicate_requests_total",
            "Raw events dropped because their request_id and body were already stored in the"
                + " session within the dedup window.");
    this.threadFailures =
        registry.counter(
            "prefixlog_stream_thread_failures_total",
            "Stream threads that died on an uncaught exception (replaced or, at the limit, not).");
    registry.gauge(
        "prefixlog_live_sessions", "Sessions holding bases on this instance.", liveSessions::sum);
  }

  public MetricsRegistry registry() {
    return registry;
  }

  public LongAdder liveSessions() {
    return liveSessions;
  }

  public LongAdder threadFailures() {
    return threadFailures;
  }

  public LongAdder sessionsEvicted() {
    return sessionsEvicted;
  }

  public LongAdder duplicates() {
    return duplicates;
  }

  /**
   * Counts a chain started: {@code new} (no state for the session), {@code idle} (its state passed
   * the seq retention) or {@code legacy_state} (a state from before chains existed).
   */
  public void chainStarted(String cause) {
    registry
        .counter(
            "prefixlog_chains_started_total",
            "Chains started (a session's turns numbered from 1), by cause.",
            "cause",
            cause)
        .increment();
  }

  /**
   * Counts a session erase order obeyed, by outcome: {@code erased}, {@code kept} (its chain had a
   * turn after the order's {@code before}) or {@code absent} (no state held).
   */
  public void erasure(String outcome) {
    registry
        .counter(
            "prefixlog_session_erasures_total",
            "Session erase orders obeyed, by outcome.",
            "outcome",
            outcome)
        .increment();
  }

  /** Counts one emitted turn. */
  public void recordTurn(EncodedTurn turn, long bodyBytes, long recordBytes) {
    if (turn.isKeyframe()) {
      registry
          .counter(
              "prefixlog_keyframes_total",
              "Keyframes emitted, by reason.",
              "reason",
              turn.keyframeReason().wireName())
          .increment();
      registry
          .counter("prefixlog_turns_total", "Delta records emitted, by kind.", "kind", "full")
          .increment();
    } else {
      deltas.increment();
    }
    bodyBytesIn.add(bodyBytes);
    recordBytesOut.add(recordBytes);
  }
}
