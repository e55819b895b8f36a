package io.prefixlog.core.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.http.HostFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Serves {@code GET /metrics} (Prometheus text, or OpenMetrics when the scraper asks for it) and
 * {@code GET /health} (200 when healthy, else 503 with the reason) on one small daemon thread.
 *
 * <p>Why the JDK's server and not the Prometheus client's exporter: {@code /health} must answer
 * with the reason in its body (an operator sees why a stream app stopped without reading logs), and
 * the exporter's built-in health endpoint only says "healthy"; the JDK server costs one thread and
 * no dependency, and the scrape itself is the registry's.
 *
 * <p>Every path is behind {@link HostCheck}: a request whose {@code Host} is not one of this
 * service's names, or whose {@code Origin} is another site, gets 403 and is counted in {@link
 * #REFUSED}.
 */
public final class MetricsServer implements AutoCloseable {
  static final String TEXT_004 = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  /** Requests a prefixlog HTTP service refused by {@link HostCheck}, by service and reason. */
  public static final String REFUSED = "prefixlog_http_refused_total";

  private final HttpServer server;

  private MetricsServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts serving.
   *
   * @param host the address to bind (loopback unless the deployment exposes metrics)
   * @param port the port; 0 picks a free one
   * @param hosts the names this service answers to ({@code PREFIXLOG_ALLOWED_HOSTS})
   */
  public static MetricsServer start(
      String host,
      int port,
      HostCheck hosts,
      PrometheusMeterRegistry registry,
      BooleanSupplier healthy)
      throws IOException {
    Objects.requireNonNull(healthy, "healthy");
    return startWithRoutes(
        host,
        port,
        hosts,
        registry,
        () -> healthy.getAsBoolean() ? Optional.empty() : Optional.of("unhealthy"),
        Map.of());
  }

  /**
   * Starts serving {@code /metrics}, {@code /health} and {@code routes} (path prefix → handler: the
   * stream app's interactive queries); {@code problem} is empty while healthy, else what is wrong,
   * which {@code /health} returns in its 503 body (an operator sees why without reading the logs).
   * With routes the server has a few threads, not one: a route may wait on a peer (a query
   * forwarded to the instance that holds the key), and neither a scrape nor the peer's own
   * forwarded query to this instance may queue behind it.
   *
   * @param hosts the names this service answers to ({@code PREFIXLOG_ALLOWED_HOSTS})
   */
  public static MetricsServer startWithRoutes(
      String host,
      int port,
      HostCheck hosts,
      PrometheusMeterRegistry registry,
      Supplier<Optional<String>> problem,
      Map<String, HttpHandler> routes)
      throws IOException {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(routes, "routes");
    Objects.requireNonNull(problem, "problem");
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    HostFilter filter = new HostFilter(hosts, reason -> countRefusal(registry, "metrics", reason));
    server
        .createContext(
            "/metrics",
            exchange -> {
              String type = contentType(exchange.getRequestHeaders().getFirst("Accept"));
              respond(exchange, 200, type, registry.scrape(type));
            })
        .getFilters()
        .add(filter);
    server
        .createContext(
            "/health",
            exchange -> {
              Optional<String> wrong = problem.get();
              respond(
                  exchange,
                  wrong.isEmpty() ? 200 : 503,
                  "text/plain; charset=utf-8",
                  wrong.map(reason -> reason + "\n").orElse("ok\n"));
            })
        .getFilters()
        .add(filter);
    routes.forEach((path, handler) -> server.createContext(path, handler).getFilters().add(filter));
    server.setExecutor(
        Executors.newFixedThreadPool(
            routes.isEmpty() ? 1 : 4,
            r -> {
              Thread thread = new Thread(r, "prefixlog-metrics-http");
              thread.setDaemon(true);
              return thread;
            }));
    server.start();
    return new MetricsServer(server);
  }

  /** OpenMetrics when the scraper accepts it (Prometheus does), else the text format 0.0.4. */
  public static String contentType(String accept) {
    return accept != null && accept.contains("application/openmetrics-text")
        ? OPEN_METRICS
        : TEXT_004;
  }

  /** Counts one refusal of {@link HostCheck} in {@link #REFUSED}. */
  public static void countRefusal(MeterRegistry registry, String service, HostCheck.Reason reason) {
    Meters.counter(
            registry,
            REFUSED,
            "requests refused because their Host is not one of the service's names or their Origin"
                + " is another site (PREFIXLOG_ALLOWED_HOSTS)",
            "service",
            service,
            "reason",
            reason.label())
        .increment();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
