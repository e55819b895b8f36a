package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.schemas.request.Usage;
import io.vertx.core.MultiMap;
import java.util.Map;

/**
 * The bridge's capture encoding without sockets or a broker: the {@link EventFactory} that {@link
 * ProxyComponents} builds from a {@link ProxyConfig}, fed completed exchanges, giving the exact
 * event bytes the publisher thread would send, with the sampling decisions it counted. For code
 * that needs the bridge's own output without running it: the tests that check what the stream app
 * and the tools make of it, and the sampling benchmark, which times it. Main code, so that neither
 * reaches into the bridge's test classes.
 */
public final class OfflineCapture {
  private final EventFactory factory;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  public OfflineCapture(ProxyConfig config) {
    this.factory = new ProxyComponents(config, new ProxyMetrics(registry)).events();
  }

  /**
   * The event of one completed {@code POST /v1/chat/completions} exchange.
   *
   * @param sessionId the client's {@code X-Session-ID}
   * @param status the response status
   * @param usage the engine's usage, or null
   * @return the record value the bridge publishes (key: the event's {@code session_key})
   */
  public byte[] capture(
      String requestId, long ts, String sessionId, byte[] body, int status, Usage usage) {
    return capture(requestId, ts, Map.of("x-session-id", sessionId), body, status, usage);
  }

  /**
   * The event of one completed {@code POST /v1/chat/completions} exchange with these request
   * headers (and {@code x-request-id}).
   */
  public byte[] capture(
      String requestId,
      long ts,
      Map<String, String> requestHeaders,
      byte[] body,
      int status,
      Usage usage) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    headers.addAll(requestHeaders);
    headers.add("x-request-id", requestId);
    CapturedExchange exchange =
        new CapturedExchange(
            new CapturedExchange.Request(
                requestId,
                requestId,
                ts,
                "POST",
                "/v1/chat/completions",
                headers,
                "127.0.0.1",
                "prefixlog-test",
                null),
            new CapturedExchange.Body(body, false, body.length),
            new CapturedExchange.Outcome(
                status, 12.5, 3.25, usage, "chatcmpl-" + requestId, null, 1000));
    return factory.encode(exchange).value();
  }

  /** How many events took each sampling decision ({@code session_selected}, …). */
  public long decisions(String decision) {
    return (long) registry.get(ProxyMetrics.SAMPLING).tag("decision", decision).counter().count();
  }
}
