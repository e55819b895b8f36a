package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.bridge.kv.KvBridge;
import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.kv.PythonPublisher;
import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.PublishConfig;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every service's {@code /metrics} as Prometheus scrapes it, after real traffic: the stream app,
 * the bridge process (capture proxy and KV subscriber sharing one registry, as {@code BridgeMain}
 * runs them) and the KV subscriber on its own. Each must pass {@code promtool check metrics}
 * (Debian's prometheus package) and carry the Kafka Streams or client meters, the JVM and process
 * meters, and its latency histograms.
 */
@ExtendWith(KafkaExtension.class)
class MetricsEndpointsIT {
  /**
   * One client for the class: a client made per call and dropped at once hung a test on a response
   * whose bytes had all arrived (HeaderOnlyLoadIT).
   */
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final String PREFIX = "metrics.";
  private static final String PROMTOOL = "/usr/bin/promtool";
  private static final String SECRET = "metrics-endpoints-it-secret";

  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldExposeKafkaJvmAndLatencyMetricsThatPromtoolAccepts(KafkaCluster kafka)
      throws Exception {
    assumeThat(Files.isExecutable(Path.of(PROMTOOL)))
        .as("promtool (scripts/install-test-deps.sh installs prometheus)")
        .isTrue();
    // Given: the stream app, and a bridge process (proxy + KV subscriber) in front of the demo
    // engine and a vLLM-format publisher
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
    settings.put("PREFIXLOG_APPLICATION_ID", "metrics-endpoints-app");
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state").toString());
    settings.put("PREFIXLOG_METRICS_PORT", "0");
    settings.put("PREFIXLOG_PARTITIONS", "2");
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings));
        PythonPublisher publisher = PythonPublisher.start("--topic", "kv", "--buffer", "8");
        DemoUpstream upstream = DemoUpstream.start(DemoUpstream.Options.defaults())) {
      app.start();
      awaitRunning(app);
      Map<String, String> kvSettings = new HashMap<>(settings);
      kvSettings.put("PREFIXLOG_KV_ENDPOINTS", publisher.pubEndpoint);
      kvSettings.put("PREFIXLOG_KV_REPLAY_ENDPOINTS", publisher.routerEndpoint);
      kvSettings.put("PREFIXLOG_KV_TOPIC", "kv");
      try (KvBridge kv = new KvBridge(KvBridgeConfig.defaults(kvSettings));
          KvBridge bridgeKv =
              new KvBridge(KvBridgeConfig.defaults(with(kvSettings, "PREFIXLOG_METRICS_PORT")));
          CaptureProxy proxy =
              CaptureProxy.start(
                  ProxyConfig.defaults(URI.create(upstream.baseUrl()), kafka.bootstrapServers())
                      .withListen("127.0.0.1", 0)
                      .with(PublishConfig.TOPIC_PREFIX, PREFIX)
                      .with(CaptureConfig.SESSION_SECRET, SECRET)
                      .with(MetricsConfig.PORT, 0),
                  bridgeKv.metrics(),
                  bridgeKv::isHealthy)) {
        kv.start();
        bridgeKv.start();

        // When: traffic through the proxy (streamed and not), KV batches, deltas emitted
        for (int i = 0; i < 6; i++) {
          HttpResponse<String> response =
              HTTP.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + proxy.port() + "/v1/chat/completions"))
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofString(chat(i)))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          assertThat(response.statusCode()).isEqualTo(200);
        }
        awaitMetric(app.metricsPort(), "prefixlog_turns_total", 6, () -> {});
        // A SUB socket misses what was sent before it joined: publish until the index saw some.
        awaitMetric(
            app.metricsPort(),
            "prefixlog_kv_index_batches_total",
            1,
            () -> publisher.command("send 1"));

        // Then
        String streamApp = scrape(app.metricsPort());
        String bridge = scrape(proxy.metricsPort());
        String subscriber = scrape(kv.metricsPort());
        for (String text : List.of(streamApp, bridge, subscriber)) {
          assertThat(promtoolCheck(text)).isEmpty();
          assertThat(text).contains("\njvm_memory_used_bytes{", "\nprocess_cpu_usage ");
        }
        assertThat(streamApp)
            .contains(
                "\nkafka_stream_thread_process_rate{",
                "\nkafka_consumer_fetch_manager_records_lag_max{",
                "\nkafka_producer_record_error_total{",
                "\nprefixlog_capture_to_delta_seconds_bucket{",
                "\nprefixlog_kv_event_age_seconds_bucket{",
                "\nprefixlog_rebuild_mismatches_total 0.0\n",
                "\nprefixlog_turns_total{kind=\"delta\"}");
        assertThat(bridge)
            .contains(
                "\nkafka_producer_record_error_total{",
                "client_id=\"prefixlog-capture-proxy\"",
                "client_id=\"prefixlog-ingest-bridge-kv\"",
                "\nprefixlog_proxy_added_latency_seconds_bucket{",
                "\nprefixlog_proxy_ttfb_seconds_bucket{",
                "\nprefixlog_capture_publish_latency_seconds_bucket{",
                "\nprefixlog_proxy_publish_queue_wait_seconds_bucket{",
                "\nprefixlog_kv_batches_total ");
        assertThat(histogramCount(bridge, "prefixlog_proxy_ttfb_seconds")).isEqualTo(6);
        assertThat(subscriber)
            .contains("\nkafka_producer_record_error_total{", "\nprefixlog_kv_batches_total ");
      }
    }
  }

  private static String chat(int i) {
    return "{\"model\":\"demo\",\"stream\":"
        + (i % 2 == 0)
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"question "
        + i
        + " about metrics\"}]}";
  }

  private static Map<String, String> with(Map<String, String> settings, String metricsPortKey) {
    Map<String, String> copy = new HashMap<>(settings);
    copy.put(metricsPortKey, "-1");
    return copy;
  }

  /** What {@code promtool check metrics} says of {@code text}: empty when it has no complaint. */
  private static String promtoolCheck(String text) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(PROMTOOL, "check", "metrics").redirectErrorStream(true).start();
    process.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = process.waitFor();
    return code == 0 && output.isBlank() ? "" : "exit " + code + ": " + output;
  }

  private static String scrape(int port) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /** The {@code _count} of a histogram without labels, as scraped. */
  private static long histogramCount(String text, String name) {
    return text.lines()
        .filter(l -> l.startsWith(name + "_count "))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1)))
        .sum();
  }

  /**
   * Waits until the sum of a counter's series on the endpoint reaches {@code atLeast}, running
   * {@code nudge} before each look.
   */
  private static void awaitMetric(int port, String name, long atLeast, Runnable nudge) {
    await()
        .alias(name + " >= " + atLeast)
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              nudge.run();
              return scrape(port)
                  .lines()
                  .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                  .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                  .sum();
            },
            seen -> seen >= atLeast);
  }

  private static void awaitRunning(StreamApp app) {
    await()
        .alias("stream app RUNNING")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(app::state, state -> state == KafkaStreams.State.RUNNING);
  }
}
