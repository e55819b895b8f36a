package io.prefixlog.bridge.proxy;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.metrics.MetricsServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The proxy's {@code /metrics} (the registry, in the format the scraper asks for) and {@code
 * /health}: 200 {@code ok} once the listener serves and the publisher and whatever else the process
 * runs are healthy, 503 {@code warming_up} before the listener opens (a readiness probe, not a
 * liveness one), 503 {@code unhealthy} otherwise; with the publisher's Kafka state and queue depth.
 * On the proxy's event loops, at {@code PREFIXLOG_METRICS_HOST}:{@code PREFIXLOG_METRICS_PORT},
 * behind {@link HostCheck} ({@code PREFIXLOG_ALLOWED_HOSTS}).
 */
final class MetricsEndpoint {
  private final PrometheusMeterRegistry registry;
  private final EventPublisher publisher;
  private final BooleanSupplier alsoHealthy;
  private final AtomicBoolean serving;
  private final HostCheck hosts;

  private MetricsEndpoint(
      PrometheusMeterRegistry registry,
      EventPublisher publisher,
      BooleanSupplier alsoHealthy,
      AtomicBoolean serving,
      HostCheck hosts) {
    this.registry = registry;
    this.publisher = publisher;
    this.alsoHealthy = alsoHealthy;
    this.serving = serving;
    this.hosts = hosts;
  }

  /**
   * Binds the endpoint; the future gives its server once it listens.
   *
   * @param serving true once the proxy's listener serves
   */
  static Future<HttpServer> start(
      Vertx vertx,
      MetricsConfig config,
      PrometheusMeterRegistry registry,
      EventPublisher publisher,
      BooleanSupplier alsoHealthy,
      AtomicBoolean serving) {
    MetricsEndpoint endpoint =
        new MetricsEndpoint(registry, publisher, alsoHealthy, serving, config.hosts());
    return vertx
        .createHttpServer(new HttpServerOptions().setHost(config.host()).setPort(config.port()))
        .requestHandler(endpoint::handle)
        .listen();
  }

  private void handle(HttpServerRequest request) {
    if (HostRefusal.refused(hosts, registry, "metrics", request)) {
      return;
    }
    switch (request.path()) {
      case "/metrics" -> metrics(request);
      case "/health" -> health(request);
      default -> request.response().setStatusCode(404).end("not found\n");
    }
  }

  private void metrics(HttpServerRequest request) {
    String type = MetricsServer.contentType(request.getHeader("Accept"));
    String text = registry.scrape(type);
    request
        .response()
        .putHeader("Content-Type", type)
        .end(Buffer.buffer(text.getBytes(StandardCharsets.UTF_8)));
  }

  private void health(HttpServerRequest request) {
    boolean listening = serving.get();
    boolean ok = listening && alsoHealthy.getAsBoolean() && publisher.healthy();
    String body =
        "{\"status\":\""
            + (ok ? "ok" : listening ? "unhealthy" : "warming_up")
            + "\",\"kafka\":\""
            + publisher.kafkaState()
            + "\",\"queue_depth\":"
            + publisher.queueDepth()
            + "}\n";
    request
        .response()
        .setStatusCode(ok ? 200 : 503)
        .putHeader("Content-Type", "application/json")
        .end(body);
  }
}
