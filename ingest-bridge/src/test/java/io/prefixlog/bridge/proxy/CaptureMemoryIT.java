package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * More request bodies in flight at once than the heap holds. The proxy keeps each captured body on
 * the heap until its exchange ends (the event carries the response's usage), so {@value #CLIENTS}
 * concurrent 4 MiB bodies against an engine that thinks for {@value #ENGINE_SECONDS} s hold {@value
 * #CLIENTS} × 4 MiB of captures at once: more than the bridge's {@value #HEAP_MIB} MiB heap.
 * Without a bound on the captures in flight the bridge died of it ({@code ExitOnOutOfMemoryError},
 * as the image runs it), taking every exchange in flight and every event not yet published with it.
 * With the bound ({@code PREFIXLOG_PROXY_CAPTURE_MEMORY}), every request is answered, the captures
 * beyond the bound are counted dropped ({@code capture_memory}), and the rest are published.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CaptureMemoryIT {
  private static final int CLIENTS = 48;
  private static final int BODY_BYTES = 4 << 20;
  private static final int HEAP_MIB = 128;
  private static final int ENGINE_SECONDS = 5;

  @TempDir Path dir;

  @Test
  void shouldAnswerEveryRequestAndCountTheCapturesBeyondTheBound(KafkaCluster kafka)
      throws Exception {
    // Given: an engine that answers after 5 s, and the bridge in a JVM of 128 MiB
    TopicReader.createTopic(kafka.bootstrapServers(), "memory.requests.raw");
    try (DemoUpstream engine =
            DemoUpstream.start(
                DemoUpstream.Options.defaults().withDelay(Duration.ofSeconds(ENGINE_SECONDS)));
        BridgeChild bridge =
            BridgeChild.start(
                dir,
                kafka,
                engine.baseUrl(),
                "memory.",
                HEAP_MIB,
                // The hand-off to the publisher has its own bound, kept below the heap here.
                Map.of("PREFIXLOG_PROXY_QUEUE_BYTES", "16m"))) {
      bridge.awaitHealthy();
      byte[] body = chatBody(BODY_BYTES);

      // When: 48 clients each send a 4 MiB body at once
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
      List<Future<HttpResponse<String>>> responses = new ArrayList<>();
      try {
        for (int i = 0; i < CLIENTS; i++) {
          HttpRequest request =
              HttpRequest.newBuilder(bridge.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .header("X-Session-ID", "memory-" + i)
                  .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                  .build();
          responses.add(clients.submit(() -> BridgeChild.send(request, Duration.ofSeconds(90))));
        }

        // Then: every request is answered by the engine, and the bridge is still there
        List<Integer> statuses = new ArrayList<>();
        for (Future<HttpResponse<String>> response : responses) {
          try {
            statuses.add(response.get(120, TimeUnit.SECONDS).statusCode());
          } catch (java.util.concurrent.ExecutionException e) {
            statuses.add(-1);
          }
        }
        bridge.assertAlive();
        assertThat(statuses).as("statuses").containsOnly(200);
      } finally {
        clients.shutdownNow();
      }
      // and every exchange is either published or counted dropped (most for the bound; the
      // publisher's queue of 16 MiB may drop one of the bodies that ended together), none lost
      String metrics =
          bridge.awaitMetrics(
              m -> accounted(m) >= CLIENTS, "every exchange published or counted dropped");
      assertThat(accounted(metrics)).as("published + dropped").isEqualTo(CLIENTS);
      double published = BridgeChild.value(metrics, "prefixlog_proxy_events_published_total");
      double shed =
          BridgeChild.value(
              metrics, "prefixlog_proxy_events_dropped_total{reason=\"capture_memory\"}");
      System.out.printf(
          "CaptureMemoryIT: %d bodies of %d MiB at once, -Xmx%dm: %.0f published, %.0f dropped"
              + " for the capture bound, %.0f dropped in all%n",
          CLIENTS, BODY_BYTES >> 20, HEAP_MIB, published, shed, dropped(metrics));
      assertThat(shed).as("captures dropped for the bound").isPositive();
      assertThat(published).as("captures published").isPositive();
      assertThat(BridgeChild.value(metrics, "prefixlog_proxy_capture_memory_bytes"))
          .as("capture memory once every exchange ended")
          .isZero();
    }
  }

  /** Published plus dropped for any reason: every exchange that ended, each a counted outcome. */
  private static double accounted(String metrics) {
    return BridgeChild.value(metrics, "prefixlog_proxy_events_published_total") + dropped(metrics);
  }

  /** Events dropped for any reason: each a counted outcome. */
  private static double dropped(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith("prefixlog_proxy_events_dropped_total{"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** A chat request of exactly {@code bytes} bytes: one user message of filler text. */
  private static byte[] chatBody(int bytes) {
    byte[] head =
        "{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"user\",\"content\":\""
            .getBytes(StandardCharsets.US_ASCII);
    byte[] tail = "\"}]}".getBytes(StandardCharsets.US_ASCII);
    byte[] body = new byte[bytes];
    System.arraycopy(head, 0, body, 0, head.length);
    Arrays.fill(body, head.length, bytes - tail.length, (byte) 'a');
    System.arraycopy(tail, 0, body, bytes - tail.length, tail.length);
    return body;
  }
}
