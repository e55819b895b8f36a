package io.prefixlog.bridge.proxy;

import io.prefixlog.core.session.SessionKey;
import io.prefixlog.schemas.request.Usage;
import io.vertx.core.MultiMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the proxy saw of one exchange, handed to the queue when the response completed or failed.
 * Holds the captured body bytes; {@link #encode()} (on the publisher thread) derives the session
 * key if the event loop did not need it, digests the body and writes the event's JSON. {@link
 * #toString()} never shows the body.
 */
final class CapturedExchange implements Outbound {
  /** Time the proxy added to the exchange (see ProxyMetrics), or -1 when it did not complete. */
  private final long addedNanos;

  final EventFactory factory;

  /** The capture's id: the event's {@code request_id} and {@code capture_id}. */
  final String requestId;

  /** The client's {@code X-Request-Id}, or null. */
  final String clientRequestId;

  final long ts;
  final String method;
  final String path;
  // The request's headers, filtered on the publisher thread (nothing changes them once the
  // exchange is over, and the queue's hand-off publishes them): the event loop only forwards.
  private final MultiMap requestHeaders;
  private final HeaderPolicy headerPolicy;
  private final List<String> sessionHeaderNames;
  final String clientAddr;
  final String userAgent;
  final byte[] body;
  final boolean truncated;
  final long originalBodyLen;
  final SessionKey sessionKey;
  final Integer status;
  final double latencyMs;
  final Double ttfbMs;
  final Usage usage;
  final String responseId;
  final String error;

  CapturedExchange(
      EventFactory factory,
      String requestId,
      String clientRequestId,
      long ts,
      String method,
      String path,
      MultiMap requestHeaders,
      HeaderPolicy headerPolicy,
      List<String> sessionHeaderNames,
      String clientAddr,
      String userAgent,
      byte[] body,
      boolean truncated,
      long originalBodyLen,
      SessionKey sessionKey,
      Integer status,
      double latencyMs,
      Double ttfbMs,
      Usage usage,
      String responseId,
      String error,
      long addedNanos) {
    this.factory = factory;
    this.addedNanos = addedNanos;
    this.requestId = requestId;
    this.clientRequestId = clientRequestId;
    this.ts = ts;
    this.method = method;
    this.path = path;
    this.requestHeaders = requestHeaders;
    this.headerPolicy = headerPolicy;
    this.sessionHeaderNames = sessionHeaderNames;
    this.clientAddr = clientAddr;
    this.userAgent = userAgent;
    this.body = body;
    this.truncated = truncated;
    this.originalBodyLen = originalBodyLen;
    this.sessionKey = sessionKey;
    this.status = status;
    this.latencyMs = latencyMs;
    this.ttfbMs = ttfbMs;
    this.usage = usage;
    this.responseId = responseId;
    this.error = error;
  }

  /** The session headers by lower-case name, for the session key. */
  Map<String, String> sessionHeaders() {
    return HeaderPolicy.lowerCase(requestHeaders, sessionHeaderNames);
  }

  /** The allow-listed, never-secret headers the event records. */
  Map<String, String> capturedHeaders() {
    return headerPolicy.capture(requestHeaders);
  }

  /**
   * Records the exchange's TTFB and added latency into the proxy's histograms. Runs on the
   * publisher thread: the event loops only read the clock, the histograms' work is off the request
   * path.
   */
  void recordLatencies(ProxyMetrics metrics) {
    if (ttfbMs != null) {
      metrics.ttfb.record(Math.round(ttfbMs * 1e6), TimeUnit.NANOSECONDS);
    }
    if (addedNanos >= 0) {
      metrics.addedLatency.record(addedNanos, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public long bytes() {
    // The body, its JSON copy being built, and a margin for the rest of the event.
    return 2L * body.length + 1024;
  }

  @Override
  public EncodedEvent encode() {
    return factory.encode(this);
  }

  @Override
  public String toString() {
    return "CapturedExchange[requestId="
        + requestId
        + ", method="
        + method
        + ", status="
        + status
        + ", bodyLen="
        + body.length
        + ", body=<redacted>]";
  }
}
