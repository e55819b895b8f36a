package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The warm-up before serving ({@code PREFIXLOG_PROXY_WARMUP}): its exchanges run through the proxy
 * but reach neither the configured upstream nor Kafka nor the proxy's metrics, the listener opens
 * only after it, and /health says so meanwhile.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WarmUpIT {
  private static final String PREFIX = "warmup.";
  private static final String TOPIC = PREFIX + "requests.raw";

  @Test
  void shouldPublishNothingOfTheWarmUpAndListenOnlyAfterIt(KafkaCluster kafka) throws Exception {
    // Given
    TopicReader.createTopic(kafka.bootstrapServers(), TOPIC);
    int[] ports = Ports.free("127.0.0.1", 2);
    int port = ports[0];
    int metricsPort = ports[1];
    ProxyConfig config;
    try (TestUpstream upstream = new TestUpstream()) {
      config =
          ProxyConfig.defaults(upstream.uri(), kafka.bootstrapServers())
              .withListen("127.0.0.1", port)
              .with(MetricsConfig.PORT, metricsPort)
              .with(PublishConfig.TOPIC_PREFIX, PREFIX)
              .with(CaptureConfig.SESSION_SECRET, "test-session-secret-0123456789")
              .with(WarmUpConfig.DURATION, Duration.ofSeconds(2))
              .with(WarmUpConfig.QUIET, Duration.ZERO);
      AtomicReference<WarmUp.Result> warmUp = new AtomicReference<>();
      AtomicLong warmUpEnded = new AtomicLong();

      // When: the proxy starts while a client keeps trying its port
      CompletableFuture<CaptureProxy> starting =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return CaptureProxy.start(
                      config,
                      null,
                      () -> true,
                      result -> {
                        warmUpEnded.set(System.nanoTime());
                        warmUp.set(result);
                      });
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      long firstAccepted = 0;
      String healthWhileWarming = null;
      HttpClient http = HttpClient.newHttpClient();
      while (firstAccepted == 0) {
        if (accepts(port)) {
          firstAccepted = System.nanoTime();
        } else {
          if (healthWhileWarming == null && accepts(metricsPort)) {
            HttpResponse<String> health = health(http, metricsPort);
            healthWhileWarming = health.statusCode() + " " + health.body();
          }
          Thread.sleep(5);
        }
      }
      try (CaptureProxy proxy = starting.get(60, TimeUnit.SECONDS);
          TopicReader reader = new TopicReader(kafka.bootstrapServers(), TOPIC)) {
        // Then: the warm-up ran exchanges, and ended before the port first accepted
        assertThat(warmUp.get()).isNotNull();
        assertThat(warmUp.get().exchanges()).isPositive();
        assertThat(warmUp.get().failures()).isZero();
        assertThat(warmUp.get().quiet()).isFalse();
        assertThat(warmUp.get().took()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(warmUpEnded.get()).isLessThan(firstAccepted);
        // /health answered "warming up" before the listener opened, and "ok" once it serves
        assertThat(healthWhileWarming).startsWith("503 {\"status\":\"warming_up\"");
        HttpResponse<String> serving = health(http, metricsPort);
        assertThat(serving.statusCode()).isEqualTo(200);
        assertThat(serving.body()).startsWith("{\"status\":\"ok\"");
        // None of it reached the engine, the topic or the proxy's counters
        assertThat(upstream.received()).isEmpty();
        assertThat(reader.settle(Duration.ofSeconds(2))).isEmpty();
        assertThat(counter(proxy, ProxyMetrics.CAPTURE_BYTES)).isZero();
        assertThat(counter(proxy, ProxyMetrics.PUBLISHED)).isZero();
        assertThat(proxy.metrics().find(ProxyMetrics.RESPONSES).counters()).isEmpty();

        // And a real request after it is forwarded and published, once
        HttpResponse<String> response =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                        .header("Content-Type", "application/json")
                        .POST(
                            HttpRequest.BodyPublishers.ofString(
                                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
                                    + "\"content\":\"hi\"}]}"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(upstream.received()).hasSize(1);
        assertThat(reader.await(1, Duration.ofSeconds(30))).hasSize(1);
        assertThat(reader.settle(Duration.ofSeconds(1))).hasSize(1);
      }
    }
  }

  private static double counter(CaptureProxy proxy, String name) {
    return proxy.metrics().find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private static HttpResponse<String> health(HttpClient http, int metricsPort)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/health")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
