package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.metrics.MetricsServer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.util.Optional;

/**
 * {@link HostCheck} on the bridge's own Vert.x endpoints (metrics and health, ingest), answered and
 * counted as the JDK-server services answer and count it. The proxied requests are not checked:
 * they are the engine's, and reach it as the client sent them.
 */
final class HostRefusal {
  private HostRefusal() {}

  /** Answers 403 and counts it when {@code hosts} refuses the request; true when it did. */
  static boolean refused(
      HostCheck hosts, MeterRegistry registry, String service, HttpServerRequest request) {
    Optional<HostCheck.Reason> reason =
        hosts.refusal(request.getHeader(HttpHeaders.HOST), request.getHeader(HttpHeaders.ORIGIN));
    if (reason.isEmpty()) {
      return false;
    }
    MetricsServer.countRefusal(registry, service, reason.get());
    request
        .response()
        .setStatusCode(403)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .end(reason.get().body());
    return true;
  }
}
