package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.request.Usage;
import io.vertx.core.MultiMap;
import java.nio.charset.StandardCharsets;

/**
 * One bridge instance without sockets or a broker: the {@link EventFactory} and {@link
 * CaptureSampling} that {@link CaptureProxy} builds from a {@link ProxyConfig}, fed completed
 * exchanges, returning the exact event bytes the publisher thread would send. Public for the tools'
 * pipeline tests (through this module's test-jar): they check what the stream app and the tools
 * make of the bridge's own output; and for the benchmarks' SamplingCostBenchmark, which times it.
 */
public final class PublisherThreadBridge {
  private final ProxyConfig config;
  private final EventFactory factory;
  private final HeaderPolicy policy;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  public PublisherThreadBridge(ProxyConfig config) {
    this.config = config;
    ClientAddresses addresses =
        new ClientAddresses(config.capture().clientAddr(), config.capture().sessionSecret());
    SessionKeyDeriver deriver =
        new SessionKeyDeriver(
            config.capture().sessionSecret().getBytes(StandardCharsets.UTF_8),
            config.capture().sessionHeaders());
    this.factory =
        new EventFactory(
            deriver, addresses, CaptureSampling.of(config), new ProxyMetrics(registry));
    this.policy =
        new HeaderPolicy(config.capture().captureHeaders(), config.capture().sessionHeaders());
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
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    headers.add("x-session-id", sessionId);
    headers.add("x-request-id", requestId);
    CapturedExchange exchange =
        new CapturedExchange(
            factory,
            requestId,
            requestId,
            ts,
            "POST",
            "/v1/chat/completions",
            headers,
            policy,
            config.capture().sessionHeaders(),
            "127.0.0.1",
            "prefixlog-test",
            body,
            false,
            body.length,
            null,
            status,
            12.5,
            3.25,
            usage,
            "chatcmpl-" + requestId,
            null,
            1000);
    return exchange.encode().value();
  }

  /** How many events took each sampling decision ({@code session_selected}, …). */
  public long decisions(String decision) {
    return (long) registry.get(ProxyMetrics.SAMPLING).tag("decision", decision).counter().count();
  }
}
