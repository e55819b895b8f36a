package io.prefixlog.bridge.proxy;

import io.prefixlog.core.session.SessionKey;
import io.prefixlog.schemas.request.Usage;
import io.vertx.core.MultiMap;

/**
 * What the proxy saw of one exchange, handed to the queue when the response completed or failed: a
 * plain value, the request, its captured body and the exchange's outcome. The publisher thread
 * encodes it ({@link EventFactory#encode}): the event loop only copies and measures. {@link
 * #toString()} never shows the body or the headers.
 */
record CapturedExchange(Request request, Body body, Outcome outcome) implements Outbound {
  /**
   * The request as it arrived.
   *
   * @param requestId the capture's id: the event's {@code request_id} and {@code capture_id}
   * @param clientRequestId the client's {@code X-Request-Id}, or null
   * @param headers the request's headers, filtered on the publisher thread (nothing changes them
   *     once the exchange is over, and the queue's hand-off publishes them): the event loop only
   *     forwards
   * @param sessionKey the key the event loop derived to send {@code X-Session-ID} upstream, or null
   *     when the publisher thread derives it
   */
  record Request(
      String requestId,
      String clientRequestId,
      long ts,
      String method,
      String path,
      MultiMap headers,
      String clientAddr,
      String userAgent,
      SessionKey sessionKey) {
    /** Never the query: it may hold a credential ({@link EventFactory} removes them). */
    @Override
    public String toString() {
      int query = path == null ? -1 : path.indexOf('?');
      return "Request[requestId="
          + requestId
          + ", method="
          + method
          + ", path="
          + (query < 0 ? path : path.substring(0, query) + "?…")
          + "]";
    }
  }

  /**
   * The captured request body: its first {@code PREFIXLOG_MAX_BODY_BYTES}.
   *
   * @param originalLength how long the body was, captured or not
   */
  record Body(byte[] bytes, boolean truncated, long originalLength) {
    @Override
    public String toString() {
      return "Body[length=" + bytes.length + ", truncated=" + truncated + ", bytes=<redacted>]";
    }
  }

  /**
   * How the exchange ended.
   *
   * @param status the engine's (or the proxy's 502/504) status, null when none was sent
   * @param ttfbMs from the request's arrival to the engine's response head, null when none came
   * @param usage the engine's token usage, or null
   * @param responseId the engine's response id, or null
   * @param error the failure's classification, null when the exchange completed
   * @param addedNanos the time the proxy added to the exchange ({@link ProxyMetrics}), or -1 when
   *     it did not complete
   */
  record Outcome(
      Integer status,
      double latencyMs,
      Double ttfbMs,
      Usage usage,
      String responseId,
      String error,
      long addedNanos) {}

  @Override
  public long bytes() {
    // The body, its JSON copy being built, and a margin for the rest of the event.
    return 2L * body.bytes().length + 1024;
  }

  @Override
  public String toString() {
    return "CapturedExchange[requestId="
        + request.requestId()
        + ", method="
        + request.method()
        + ", status="
        + outcome.status()
        + ", bodyLen="
        + body.bytes().length
        + ", body=<redacted>]";
  }
}
