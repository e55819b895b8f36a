package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.request.BodyRedaction;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.DoubleSupplier;

/** The proxy's counters, gauges and latency histograms (names in the module README). */
final class ProxyMetrics {
  static final String RESPONSES = "prefixlog_proxy_responses_total";
  static final String RESPONSE_CLASSES = "prefixlog_proxy_responses_by_class_total";
  static final String ERRORS = "prefixlog_proxy_errors_total";
  static final String CAPTURE_BYTES = "prefixlog_proxy_capture_bytes_total";
  static final String TRUNCATED = "prefixlog_proxy_truncated_bodies_total";
  static final String PUBLISHED = "prefixlog_proxy_events_published_total";
  static final String DROPPED = "prefixlog_proxy_events_dropped_total";
  static final String SPILLED = "prefixlog_proxy_events_spilled_total";
  static final String RESENT = "prefixlog_proxy_events_resent_total";
  static final String PUBLISH_FAILURES = "prefixlog_proxy_publish_failures_total";
  static final String RECORD_TIME_ADJUSTED = "prefixlog_proxy_record_time_adjusted_total";
  static final String ADDED_LATENCY = "prefixlog_proxy_added_latency";
  static final String TTFB = "prefixlog_proxy_ttfb";
  static final String CAPTURE_TO_PUBLISH = "prefixlog_capture_publish_latency";
  static final String QUEUE_WAIT = "prefixlog_proxy_publish_queue_wait";
  static final String UNREADABLE_USAGE = "prefixlog_proxy_unreadable_responses_total";
  static final String SAMPLING = "prefixlog_proxy_sampling_decisions_total";
  static final String QUERY_CREDENTIALS = "prefixlog_proxy_query_credentials_removed_total";
  static final String INGEST_REQUESTS = "prefixlog_ingest_requests_total";
  static final String INGEST_LINES = "prefixlog_ingest_lines_total";
  static final String REDACTIONS = "prefixlog_proxy_redactions_total";
  static final String INGEST_REFUSED_BODIES = "prefixlog_ingest_refused_bodies_omitted_total";
  static final String TENANT_MISSING = "prefixlog_proxy_tenant_missing_total";
  static final String INGEST_REJECTIONS = "prefixlog_ingest_rejections_total";

  /** The drop reason of an exchange whose body was let go for PREFIXLOG_PROXY_CAPTURE_MEMORY. */
  static final String CAPTURE_MEMORY_DROP = "capture_memory";

  private final MeterRegistry registry;
  final Counter captureBytes;
  final Counter truncated;
  final Counter published;
  final Counter spilled;
  final Counter resent;
  final Counter publishFailures;
  final Counter spillSyncFailures;
  final Timer addedLatency;
  final Timer ttfb;
  final Timer captureToPublish;
  final Timer queueWait;
  final Counter unreadable;
  final Counter queryCredentials;
  final Counter ingestRefusedBodies;
  final Counter tenantMissing;
  private final Counter redactedFields;
  private final Counter redactedPassages;
  private final Map<CaptureSampling.Decision, Counter> sampling =
      new EnumMap<>(CaptureSampling.Decision.class);

  /**
   * The two response counters of each status code below 600 once looked up: counting a response on
   * the event loop then builds no label string and looks nothing up.
   */
  private final AtomicReferenceArray<Counter[]> byStatus = new AtomicReferenceArray<>(600);

  /** The counter of one capture-sampling decision. */
  Counter sampled(CaptureSampling.Decision decision) {
    return sampling.get(decision);
  }

  /** Counters and gauges, with the latency histograms recording. */
  ProxyMetrics(MeterRegistry registry) {
    this(registry, true);
  }

  /**
   * @param histograms false: the latency histograms record nothing ({@code
   *     PREFIXLOG_METRICS_HISTOGRAMS=false}, how the proxy benchmark measures their cost)
   */
  ProxyMetrics(MeterRegistry registry, boolean histograms) {
    this.registry = registry;
    captureBytes =
        Meters.counter(
            registry, CAPTURE_BYTES, "Request body bytes captured (up to the capture limit).");
    truncated =
        Meters.counter(registry, TRUNCATED, "Request bodies longer than the capture limit.");
    published = Meters.counter(registry, PUBLISHED, "Raw request events acknowledged by Kafka.");
    spilled = Meters.counter(registry, SPILLED, "Events written to the spill directory.");
    resent =
        Meters.counter(registry, RESENT, "Spilled events acknowledged by Kafka after a resend.");
    publishFailures =
        Meters.counter(registry, PUBLISH_FAILURES, "Sends Kafka refused or that timed out.");
    spillSyncFailures =
        Meters.counter(
            registry,
            "prefixlog_proxy_spill_sync_failures_total",
            "Forces of the spill to disk that failed (the events stay in the page cache).");
    // Buckets: the proxy's own time is tens of microseconds, an engine's first token tens of
    // milliseconds to seconds, a broker's acknowledgement milliseconds (seconds when it struggles).
    addedLatency =
        Meters.latency(
            registry,
            ADDED_LATENCY,
            "Time the proxy added to an exchange: from the request's arrival to its forwarding,"
                + " plus from the engine's last response byte to the client's.",
            histograms,
            Meters.millis(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250));
    ttfb =
        Meters.latency(
            registry,
            TTFB,
            "From the request's arrival to the engine's response head (the event's ttfb_ms).",
            histograms,
            Meters.millis(5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000));
    captureToPublish =
        Meters.latency(
            registry,
            CAPTURE_TO_PUBLISH,
            "From an exchange's capture (queued for the publisher) to Kafka's acknowledgement of"
                + " its raw event.",
            histograms,
            Meters.millis(1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000));
    queueWait =
        Meters.latency(
            registry,
            QUEUE_WAIT,
            "Time a captured exchange waited in the publish queue.",
            histograms,
            Meters.millis(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000));
    unreadable =
        Meters.counter(
            registry,
            UNREADABLE_USAGE,
            "JSON or SSE responses whose id and usage could not be read.");
    queryCredentials =
        Meters.counter(
            registry,
            QUERY_CREDENTIALS,
            "Query parameters removed from stored paths as credentials"
                + " (PREFIXLOG_QUERY_CREDENTIALS); the requests were forwarded as sent.");
    ingestRefusedBodies =
        Meters.counter(
            registry,
            INGEST_REFUSED_BODIES,
            "Ingested events of requests the engine refused (401 or 403) whose body was left out:"
                + " stored as metadata only.");
    tenantMissing =
        Meters.counter(
            registry,
            TENANT_MISSING,
            "Captured requests without a tenant while PREFIXLOG_TENANT names where it comes from"
                + " (no such header, no credential): keyed as without tenants.");
    redactedFields = redactions(registry, "field");
    redactedPassages = redactions(registry, "pattern");
    registerLabelled();
  }

  /** The labelled series, each label value registered at start so that it shows as zero. */
  private void registerLabelled() {
    for (CaptureSampling.Decision decision : CaptureSampling.Decision.values()) {
      sampling.put(
          decision,
          Meters.counter(
              registry,
              SAMPLING,
              "Events by capture-sampling decision: session_selected and forced keep the body,"
                  + " sampled_out sends metadata and chunk hashes only (PREFIXLOG_SAMPLE_SESSIONS),"
                  + " refused (the engine answered 401 or 403) and client_rate (over its client's"
                  + " PREFIXLOG_CAPTURE_CLIENT_RATE) send metadata only.",
              "decision",
              decision.name().toLowerCase(java.util.Locale.ROOT)));
    }
    for (RecordTime.Reason reason : RecordTime.Reason.values()) {
      recordTimeAdjusted(reason);
    }
    for (String reason :
        new String[] {
          "queue_full",
          CAPTURE_MEMORY_DROP,
          "kafka",
          "rejected",
          "spill_full",
          "spill_error",
          "shutdown"
        }) {
      dropped(reason);
    }
  }

  MeterRegistry registry() {
    return registry;
  }

  /**
   * Records an exchange's TTFB and added latency into the histograms. Runs on the publisher thread:
   * the event loops only read the clock, the histograms' work is off the request path.
   */
  void recordLatencies(CapturedExchange.Outcome outcome) {
    if (outcome.ttfbMs() != null) {
      ttfb.record(Math.round(outcome.ttfbMs() * 1e6), TimeUnit.NANOSECONDS);
    }
    if (outcome.addedNanos() >= 0) {
      addedLatency.record(outcome.addedNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** Counts a client connection closed as it was accepted, over the connection cap. */
  void clientConnectionRefused() {
    Meters.counter(
            registry,
            "prefixlog_proxy_client_connections_refused_total",
            "Client connections closed as they were accepted: PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS"
                + " were open.")
        .increment();
  }

  /**
   * Counts a client connection closed for silence or slowness, by kind: header, idle, body,
   * response, body_rate, body_deadline.
   */
  void clientTimeout(String kind) {
    Meters.counter(
            registry,
            "prefixlog_proxy_client_timeouts_total",
            "Client connections closed because the client fell silent or too slow, by kind (header:"
                + " no complete request head in time; idle: between requests; body: silent"
                + " mid-body; response: took none of a response it had stopped reading;"
                + " body_rate: a request body below PREFIXLOG_PROXY_MIN_BODY_RATE; body_deadline:"
                + " a request body not in within PREFIXLOG_PROXY_BODY_DEADLINE).",
            "kind",
            kind)
        .increment();
  }

  /** Counts a request refused before it was forwarded (ambiguous framing), by reason. */
  void refused(String reason) {
    Meters.counter(
            registry,
            "prefixlog_proxy_refused_requests_total",
            "Requests refused with 400 before forwarding, by reason (ambiguous framing).",
            "reason",
            reason)
        .increment();
  }

  void response(int status) {
    Counter[] counters = status < 0 || status >= byStatus.length() ? null : byStatus.get(status);
    if (counters == null) {
      // Two loops may both look up: the registry hands both the same counters.
      counters = lookUpResponse(status);
      if (status >= 0 && status < byStatus.length()) {
        byStatus.set(status, counters);
      }
    }
    counters[0].increment();
    counters[1].increment();
  }

  private Counter[] lookUpResponse(int status) {
    return new Counter[] {
      Meters.counter(
          registry,
          RESPONSES,
          "Responses sent to clients, by status code.",
          "code",
          Integer.toString(status)),
      Meters.counter(
          registry,
          RESPONSE_CLASSES,
          "Responses sent to clients, by status class.",
          "class",
          (status / 100) + "xx")
    };
  }

  void error(String kind) {
    Meters.counter(
            registry,
            ERRORS,
            "Exchanges that failed, by kind (upstream_timeout, client_disconnect, …).",
            "kind",
            kind)
        .increment();
  }

  /** Events published with the bridge's clock as their record timestamp, by why. */
  Counter recordTimeAdjusted(RecordTime.Reason reason) {
    return Meters.counter(
        registry,
        RECORD_TIME_ADJUSTED,
        "Events whose record timestamp is the bridge's clock at the send, not their capture time"
            + " (ts, which they keep): ahead (beyond PREFIXLOG_MAX_CLOCK_SKEW), old (beyond"
            + " PREFIXLOG_MAX_CAPTURE_AGE), refused (the broker refused the capture time).",
        "reason",
        reason.label());
  }

  Counter dropped(String reason) {
    return Meters.counter(
        registry, DROPPED, "Events not published and not spilled, by reason.", "reason", reason);
  }

  void ingestRequest(int status) {
    Meters.counter(
            registry,
            INGEST_REQUESTS,
            "Ingest endpoint requests, by status.",
            "code",
            Integer.toString(status))
        .increment();
  }

  Counter ingestLines(String outcome) {
    return Meters.counter(
        registry,
        INGEST_LINES,
        "Ingested lines by outcome (accepted, rejected, dropped).",
        "outcome",
        outcome);
  }

  Counter ingestRejection(String reason) {
    return Meters.counter(
        registry,
        INGEST_REJECTIONS,
        "Ingested lines rejected, by validation reason.",
        "reason",
        reason);
  }

  void gauge(String name, String help, DoubleSupplier value) {
    Meters.gauge(registry, name, help, value);
  }

  private static Counter redactions(MeterRegistry registry, String kind) {
    return Meters.counter(
        registry,
        REDACTIONS,
        "Values (kind=field: PREFIXLOG_REDACT_FIELDS) and passages (kind=pattern:"
            + " PREFIXLOG_REDACT_PATTERNS) replaced by [REDACTED] in stored request bodies.",
        "kind",
        kind);
  }

  /** Counts what a body lost to the redaction rules. */
  void redacted(BodyRedaction.Redacted redacted) {
    redactedFields.increment(redacted.fields());
    redactedPassages.increment(redacted.passages());
  }
}
