package io.prefixlog.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prefixlog.core.http.HostCheck;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class MetricsServerTest {
  @Test
  void shouldServeCountersAndGaugesInPrometheusTextFormat() throws Exception {
    // Given
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Meters.counter(
            registry, "prefixlog_dead_letters_total", "Rejected inputs.", "reason", "invalid_json")
        .increment(2);
    Meters.counter(
            registry, "prefixlog_dead_letters_total", "Rejected inputs.", "reason", "body_mismatch")
        .increment();
    Meters.counter(registry, "prefixlog_body_bytes_in_total", "Body bytes.").increment(1234);
    Meters.gauge(registry, "prefixlog_live_sessions", "Live sessions.", () -> 7);
    Meters.latency(
            registry,
            "prefixlog_proxy_ttfb",
            "Time to first byte.",
            true,
            Duration.ofMillis(1),
            Duration.ofMillis(10))
        .record(Duration.ofMillis(5));
    AtomicBoolean healthy = new AtomicBoolean(true);

    try (MetricsServer server =
        MetricsServer.start("127.0.0.1", 0, HostCheck.of(List.of()), registry, healthy::get)) {
      HttpClient client = HttpClient.newHttpClient();
      URI base = URI.create("http://127.0.0.1:" + server.port());

      // When
      HttpResponse<String> metrics =
          client.send(
              HttpRequest.newBuilder(base.resolve("/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> openMetrics =
          client.send(
              HttpRequest.newBuilder(base.resolve("/metrics"))
                  .header("Accept", "application/openmetrics-text; version=1.0.0")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> up =
          client.send(
              HttpRequest.newBuilder(base.resolve("/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      healthy.set(false);
      HttpResponse<String> down =
          client.send(
              HttpRequest.newBuilder(base.resolve("/health")).build(),
              HttpResponse.BodyHandlers.ofString());

      // Then
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      // The names operators use are the ones the hand-written registry exposed.
      assertThat(metrics.body())
          .contains(
              "# TYPE prefixlog_body_bytes_in_total counter\n",
              "prefixlog_body_bytes_in_total 1234.0\n",
              "prefixlog_dead_letters_total{reason=\"body_mismatch\"} 1.0\n",
              "prefixlog_dead_letters_total{reason=\"invalid_json\"} 2.0\n",
              "# TYPE prefixlog_live_sessions gauge\n",
              "prefixlog_live_sessions 7.0\n",
              "# TYPE prefixlog_proxy_ttfb_seconds histogram\n",
              "prefixlog_proxy_ttfb_seconds_bucket{le=\"0.001\"} 0\n",
              "prefixlog_proxy_ttfb_seconds_bucket{le=\"0.01\"} 1\n",
              "prefixlog_proxy_ttfb_seconds_count 1\n");
      assertThat(openMetrics.headers().firstValue("Content-Type"))
          .hasValue(MetricsServer.OPEN_METRICS);
      assertThat(openMetrics.body()).endsWith("# EOF\n");
      assertThat(up.statusCode()).isEqualTo(200);
      assertThat(down.statusCode()).isEqualTo(503);
    }
  }

  @Test
  void shouldAnswerHealthWith503AndTheReasonWhileAProblemIsReported() throws Exception {
    // Given
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Meters.counter(
            registry,
            "prefixlog_production_errors_total",
            "Unwritable records.",
            "topic",
            "prefixlog.dlq",
            "reason",
            "record_too_large")
        .increment();
    java.util.concurrent.atomic.AtomicReference<String> problem =
        new java.util.concurrent.atomic.AtomicReference<>();

    try (MetricsServer server =
        MetricsServer.startWithRoutes(
            "127.0.0.1",
            0,
            HostCheck.of(List.of()),
            registry,
            () -> Optional.ofNullable(problem.get()),
            Map.of())) {
      HttpClient client = HttpClient.newHttpClient();
      HttpRequest health =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
              .build();

      // When
      HttpResponse<String> up = client.send(health, HttpResponse.BodyHandlers.ofString());
      problem.set("stream threads failed 3 times within PT10M");
      HttpResponse<String> down = client.send(health, HttpResponse.BodyHandlers.ofString());

      // Then
      assertThat(up.statusCode()).isEqualTo(200);
      assertThat(up.body()).isEqualTo("ok\n");
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(down.body()).isEqualTo("stream threads failed 3 times within PT10M\n");
      assertThat(
              Meters.count(
                  registry, "prefixlog_production_errors_total", "reason", "record_too_large"))
          .isEqualTo(1);
    }
  }

  @Test
  void probeARebindingPagesHostOrAnotherSitesOriginIsRefusedAndCounted() throws Exception {
    // Given: a page whose DNS name was rebound to 127.0.0.1 sends its own name as Host, and a
    // page elsewhere that posts to the service sends its origin
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Meters.counter(registry, "prefixlog_turns_total", "Turns.").increment();

    try (MetricsServer server =
        MetricsServer.startWithRoutes(
            "127.0.0.1",
            0,
            HostCheck.of(List.of("stream-app")),
            registry,
            Optional::empty,
            Map.of(
                "/state/",
                exchange -> {
                  exchange.sendResponseHeaders(200, -1);
                  exchange.close();
                }))) {
      int port = server.port();

      // When
      String rebound = send(port, "GET /metrics", "attacker.example:" + port, null);
      String reboundState = send(port, "GET /state/s1", "attacker.example:" + port, null);
      String crossSite =
          send(port, "POST /state/s1", "127.0.0.1:" + port, "http://attacker.example");
      String listed = send(port, "GET /metrics", "stream-app:" + port, null);
      String own = send(port, "GET /metrics", "127.0.0.1:" + port, "http://127.0.0.1:" + port);

      // Then
      assertThat(rebound).startsWith("HTTP/1.1 403").doesNotContain("prefixlog_turns_total");
      assertThat(reboundState).startsWith("HTTP/1.1 403");
      assertThat(crossSite).startsWith("HTTP/1.1 403").contains("another site");
      assertThat(listed).startsWith("HTTP/1.1 200").contains("prefixlog_turns_total");
      assertThat(own).startsWith("HTTP/1.1 200");
      assertThat(Meters.count(registry, MetricsServer.REFUSED, "reason", "host")).isEqualTo(2);
      assertThat(Meters.count(registry, MetricsServer.REFUSED, "reason", "origin")).isEqualTo(1);
    }
  }

  /** One request as a browser writes it (the JDK's HttpClient will not set Host), its response. */
  static String send(int port, String requestLine, String host, String origin) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      String head =
          requestLine
              + " HTTP/1.1\r\nHost: "
              + host
              + "\r\n"
              + (origin == null ? "" : "Origin: " + origin + "\r\n")
              + "Content-Length: 0\r\nConnection: close\r\n\r\n";
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
