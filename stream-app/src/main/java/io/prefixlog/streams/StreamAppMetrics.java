package io.prefixlog.streams;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.metrics.Meters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/** The stream app's metrics, one set per app instance, shared by all its tasks. */
public final class StreamAppMetrics {
  private final MeterRegistry registry;
  private final Counter deltas;
  private final Counter bodyBytesIn;
  private final Counter recordBytesOut;
  private final LongAdder liveSessions = new LongAdder();
  private final Counter sessionsEvicted;
  private final Counter duplicates;
  private final Counter queryCredentials;
  private final Counter sampledOut;
  private final Counter threadFailures;
  private final Counter rebuildMismatches;
  private final Counter baseRebuildFailures;
  private final Timer captureToDelta;
  private final Map<String, LongAdder> bulkPending = new ConcurrentHashMap<>();

  public StreamAppMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.deltas =
        Meters.counter(
            registry, "prefixlog_turns_total", "Delta records emitted, by kind.", "kind", "delta");
    this.bodyBytesIn =
        Meters.counter(registry, "prefixlog_body_bytes_in_total", "Request body bytes encoded.");
    this.recordBytesOut =
        Meters.counter(
            registry,
            "prefixlog_record_bytes_out_total",
            "Bytes of delta record JSON emitted (uncompressed).");
    this.sessionsEvicted =
        Meters.counter(
            registry,
            "prefixlog_sessions_evicted_total",
            "Idle sessions whose bases were evicted.");
    this.sampledOut =
        Meters.counter(
            registry,
            "prefixlog_sampled_out_requests_total",
            "Metadata-only raw events (capture sampling left the body out): a metadata record and"
                + " a hash-only lookup each, no delta.");
    this.duplicates =
        Meters.counter(
            registry,
            "prefixlog_duplicate_requests_total",
            "Raw events dropped because their request_id and body were already stored in the"
                + " session within the dedup window.");
    this.queryCredentials =
        Meters.counter(
            registry,
            "prefixlog_query_credentials_removed_total",
            "Query parameters removed from stored paths as credentials"
                + " (PREFIXLOG_QUERY_CREDENTIALS), in events a producer other than the bridge wrote.");
    this.threadFailures =
        Meters.counter(
            registry,
            "prefixlog_stream_thread_failures_total",
            "Stream threads that died on an uncaught exception (replaced or, at the limit, not).");
    this.rebuildMismatches =
        Meters.counter(
            registry,
            "prefixlog_rebuild_mismatches_total",
            "Deltas that did not rebuild their body byte for byte when checked before writing (an"
                + " encoder bug): each was written as a keyframe instead (keyframe_reason"
                + " rebuild_mismatch). Anything above 0 is worth a bug report.");
    this.baseRebuildFailures =
        Meters.counter(
            registry,
            "prefixlog_base_rebuild_failures_total",
            "Stored bases that could not be rebuilt from the bases store with their SHA-256 (a"
                + " record missing or unreadable): the turn was encoded against another base or"
                + " written as a keyframe, so nothing is lost. Anything above 0 is worth a bug"
                + " report.");
    this.captureToDelta =
        Meters.latency(
            registry,
            "prefixlog_capture_to_delta",
            "From a request's capture (the raw event's ts) to its delta's emission by this app.",
            true,
            Meters.millis(
                10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000));
    Meters.gauge(
        registry,
        "prefixlog_live_sessions",
        "Sessions holding bases on this instance.",
        liveSessions::sum);
  }

  /**
   * Records of {@code topic} whose timestamp was further ahead of the instance's clock than {@code
   * PREFIXLOG_MAX_CLOCK_SKEW} and were processed at that bound.
   */
  public Counter recordTimeClamped(String topic) {
    return Meters.counter(
        registry,
        "prefixlog_record_time_clamped_total",
        "Input records whose timestamp was more than PREFIXLOG_MAX_CLOCK_SKEW ahead of this"
            + " instance's clock (a producer's clock runs ahead): processed with the clock plus"
            + " that bound as their time, so that they move stream time no further; the event's ts"
            + " is kept.",
        "topic",
        topic);
  }

  public MeterRegistry registry() {
    return registry;
  }

  public LongAdder liveSessions() {
    return liveSessions;
  }

  public Counter threadFailures() {
    return threadFailures;
  }

  public Counter sessionsEvicted() {
    return sessionsEvicted;
  }

  public Counter baseRebuildFailures() {
    return baseRebuildFailures;
  }

  /** Metadata-only requests (capture sampling): written as metadata, never as a turn. */
  public Counter sampledOut() {
    return sampledOut;
  }

  public Counter duplicates() {
    return duplicates;
  }

  /** Query parameters removed from raw events' paths (PREFIXLOG_QUERY_CREDENTIALS). */
  public Counter queryCredentials() {
    return queryCredentials;
  }

  /**
   * Counts a chain started: {@code new} (no state for the session), {@code idle} (its state passed
   * the seq retention) or {@code legacy_state} (a state from before chains existed).
   */
  public void chainStarted(String cause) {
    Meters.counter(
            registry,
            "prefixlog_chains_started_total",
            "Chains started (a session's turns numbered from 1), by cause.",
            "cause",
            cause)
        .increment();
  }

  /**
   * Counts {@code keys} done by a step of bulk work (see {@code PREFIXLOG_BULK_BATCH}): {@code
   * erasure_turns} (turns tombstoned), {@code erasure_request_ids} (dedup entries deleted), {@code
   * idle_index} (session states indexed by a starting task), {@code kv_clear} (blocks of a cleared
   * source deleted).
   */
  public void bulkKeys(String work, long keys) {
    Meters.counter(
            registry,
            "prefixlog_bulk_keys_total",
            "Keys done by bulk work taken in steps across commits, by work: erasure_turns,"
                + " erasure_request_ids, idle_index, kv_clear.",
            "work",
            work)
        .increment(keys);
  }

  /**
   * The jobs of bulk work under way on this instance, by work ({@code erasure}, {@code idle_index},
   * {@code kv_clear}): add 1 when one starts, -1 when it ends or its task leaves.
   */
  public LongAdder bulkPending(String work) {
    return bulkPending.computeIfAbsent(
        work,
        w -> {
          LongAdder pending = new LongAdder();
          Meters.gauge(
              registry,
              "prefixlog_bulk_pending",
              "Jobs of bulk work under way on this instance, by work: erasure (an erase order"
                  + " whose tombstones or dedup entries are not all done), idle_index (a starting"
                  + " task indexing its sessions), kv_clear (a cleared source whose blocks are not"
                  + " all deleted).",
              pending::sum,
              "work",
              w);
          return pending;
        });
  }

  /**
   * Counts a session erase order obeyed, by outcome: {@code erased}, {@code kept} (its chain had a
   * turn after the order's {@code before}) or {@code absent} (no state held).
   */
  public void erasure(String outcome) {
    Meters.counter(
            registry,
            "prefixlog_session_erasures_total",
            "Session erase orders obeyed, by outcome.",
            "outcome",
            outcome)
        .increment();
  }

  /**
   * Counts one emitted turn; {@code capturedAtMs} is the raw event's {@code ts}, wall clock, from
   * which the capture-to-delta latency is measured (a clock behind the capturing host's counts 0).
   */
  public void recordTurn(EncodedTurn turn, long bodyBytes, long recordBytes, long capturedAtMs) {
    captureToDelta.record(
        Math.max(0, System.currentTimeMillis() - capturedAtMs), TimeUnit.MILLISECONDS);
    if (turn.keyframeReason() == EncodedTurn.KeyframeReason.REBUILD_MISMATCH) {
      rebuildMismatches.increment();
    }
    if (turn.isKeyframe()) {
      Meters.counter(
              registry,
              "prefixlog_keyframes_total",
              "Keyframes emitted, by reason.",
              "reason",
              turn.keyframeReason().wireName())
          .increment();
      Meters.counter(
              registry, "prefixlog_turns_total", "Delta records emitted, by kind.", "kind", "full")
          .increment();
    } else {
      deltas.increment();
    }
    bodyBytesIn.increment(bodyBytes);
    recordBytesOut.increment(recordBytes);
  }
}
