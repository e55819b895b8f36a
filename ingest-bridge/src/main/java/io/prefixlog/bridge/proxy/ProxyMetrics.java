package io.prefixlog.bridge.proxy;

import io.prefixlog.core.metrics.MetricsRegistry;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/** The proxy's counters and gauges (names in the module README). */
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
  static final String ACK_MICROS = "prefixlog_proxy_producer_ack_micros_total";
  static final String ACKS = "prefixlog_proxy_producer_acks_total";
  static final String UNREADABLE_USAGE = "prefixlog_proxy_unreadable_responses_total";
  static final String INGEST_REQUESTS = "prefixlog_ingest_requests_total";
  static final String INGEST_LINES = "prefixlog_ingest_lines_total";
  static final String INGEST_REJECTIONS = "prefixlog_ingest_rejections_total";

  private final MetricsRegistry registry;
  final LongAdder captureBytes;
  final LongAdder truncated;
  final LongAdder published;
  final LongAdder spilled;
  final LongAdder resent;
  final LongAdder publishFailures;
  final LongAdder spillSyncFailures;
  final LongAdder ackMicros;
  final LongAdder acks;
  final LongAdder unreadable;

  /**
   * The two response counters of each status code below 600 once looked up: counting a response on
   * the event loop then builds no label string and looks nothing up.
   */
  private final AtomicReferenceArray<LongAdder[]> byStatus = new AtomicReferenceArray<>(600);

  ProxyMetrics(MetricsRegistry registry) {
    this.registry = registry;
    captureBytes =
        registry.counter(CAPTURE_BYTES, "Request body bytes captured (up to the capture limit).");
    truncated = registry.counter(TRUNCATED, "Request bodies longer than the capture limit.");
    published = registry.counter(PUBLISHED, "Raw request events acknowledged by Kafka.");
    spilled = registry.counter(SPILLED, "Events written to the spill directory.");
    resent = registry.counter(RESENT, "Spilled events acknowledged by Kafka after a resend.");
    publishFailures = registry.counter(PUBLISH_FAILURES, "Sends Kafka refused or that timed out.");
    spillSyncFailures =
        registry.counter(
            "prefixlog_proxy_spill_sync_failures_total",
            "Forces of the spill to disk that failed (the events stay in the page cache).");
    ackMicros =
        registry.counter(ACK_MICROS, "Sum of microseconds from send() to Kafka's acknowledgement.");
    acks = registry.counter(ACKS, "Acknowledgements timed in " + ACK_MICROS + ".");
    unreadable =
        registry.counter(
            UNREADABLE_USAGE, "JSON or SSE responses whose id and usage could not be read.");
    for (String reason :
        new String[] {"queue_full", "kafka", "rejected", "spill_full", "spill_error", "shutdown"}) {
      dropped(reason);
    }
  }

  MetricsRegistry registry() {
    return registry;
  }

  /** Counts a client connection closed as it was accepted, over the connection cap. */
  void clientConnectionRefused() {
    registry
        .counter(
            "prefixlog_proxy_client_connections_refused_total",
            "Client connections closed as they were accepted: PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS"
                + " were open.")
        .increment();
  }

  /** Counts a client connection closed for silence, by kind: header, idle, body. */
  void clientTimeout(String kind) {
    registry
        .counter(
            "prefixlog_proxy_client_timeouts_total",
            "Client connections closed because the client fell silent, by kind (header: no"
                + " complete request head in time; idle: between requests; body: mid-body).",
            "kind",
            kind)
        .increment();
  }

  /** Counts a request refused before it was forwarded (ambiguous framing), by reason. */
  void refused(String reason) {
    registry
        .counter(
            "prefixlog_proxy_refused_requests_total",
            "Requests refused with 400 before forwarding, by reason (ambiguous framing).",
            "reason",
            reason)
        .increment();
  }

  void response(int status) {
    LongAdder[] counters = status < 0 || status >= byStatus.length() ? null : byStatus.get(status);
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

  private LongAdder[] lookUpResponse(int status) {
    return new LongAdder[] {
      registry.counter(
          RESPONSES,
          "Responses sent to clients, by status code.",
          "code",
          Integer.toString(status)),
      registry.counter(
          RESPONSE_CLASSES,
          "Responses sent to clients, by status class.",
          "class",
          (status / 100) + "xx")
    };
  }

  void error(String kind) {
    registry
        .counter(
            ERRORS,
            "Exchanges that failed, by kind (upstream_timeout, client_disconnect, …).",
            "kind",
            kind)
        .increment();
  }

  LongAdder dropped(String reason) {
    return registry.counter(
        DROPPED, "Events not published and not spilled, by reason.", "reason", reason);
  }

  void ingestRequest(int status) {
    registry
        .counter(
            INGEST_REQUESTS,
            "Ingest endpoint requests, by status.",
            "code",
            Integer.toString(status))
        .increment();
  }

  LongAdder ingestLines(String outcome) {
    return registry.counter(
        INGEST_LINES,
        "Ingested lines by outcome (accepted, rejected, dropped).",
        "outcome",
        outcome);
  }

  LongAdder ingestRejection(String reason) {
    return registry.counter(
        INGEST_REJECTIONS, "Ingested lines rejected, by validation reason.", "reason", reason);
  }

  void gauge(String name, String help, DoubleSupplier value) {
    registry.gauge(name, help, value);
  }
}
