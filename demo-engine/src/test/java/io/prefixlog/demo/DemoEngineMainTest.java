package io.prefixlog.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.config.Settings;
import io.prefixlog.core.service.ServiceMain;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/** The demo engine process: its HTTP API, its KV events to a real ZMQ subscriber, its status. */
class DemoEngineMainTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  @Timeout(60)
  void shouldServeTheApiPublishItsKvEventsAndReportWhatItHolds() throws Exception {
    // Given
    int api = freePort();
    int kv = freePort();
    int replay = freePort();
    int status = freePort();
    ServiceMain.Service engine =
        DemoEngineMain.configure(
            Settings.of(
                Map.of(
                    "PREFIXLOG_DEMO_PORT", Integer.toString(api),
                    "PREFIXLOG_DEMO_KV_PORT", Integer.toString(kv),
                    "PREFIXLOG_DEMO_KV_REPLAY_PORT", Integer.toString(replay),
                    "PREFIXLOG_DEMO_STATUS_PORT", Integer.toString(status),
                    "PREFIXLOG_DEMO_KV_BATCHES", "20")));
    engine.start();
    try (ZContext context = new ZContext()) {
      // Before a subscriber joins, nothing is published (ZMQ would drop it)
      assertThat(get(status, "/kv")).startsWith("published=false batches=0 ");

      // When: a subscriber joins
      ZMQ.Socket sub = context.createSocket(SocketType.SUB);
      sub.connect("tcp://127.0.0.1:" + kv);
      sub.subscribe(new byte[0]);
      List<byte[]> first = List.of(sub.recv(), sub.recv(), sub.recv());

      // Then: vLLM's framing, [topic, seq, payload], from seq 0
      assertThat(new String(first.get(0), StandardCharsets.UTF_8)).isEqualTo("kv");
      assertThat(first.get(1)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0);
      String report = awaitPublished(status);
      List<String> lines = report.lines().toList();
      assertThat(lines.get(0)).startsWith("published=true batches=20 events=");
      assertThat(lines.subList(1, lines.size()))
          .isNotEmpty()
          .allSatisfy(h -> assertThat(h).matches("[0-9a-f]{16}"));
      HttpResponse<String> completion =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api + "/v1/completions"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"hello\"}"))
                  .header("Content-Type", "application/json")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(completion.statusCode()).isEqualTo(200);
      assertThat(completion.body()).contains("\"cached_tokens\"");
    } finally {
      engine.close();
    }
  }

  private static String awaitPublished(int status) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String report = get(status, "/kv");
    while (report.startsWith("published=false") && System.nanoTime() < deadline) {
      Thread.sleep(50);
      report = get(status, "/kv");
    }
    return report;
  }

  private static String get(int port, String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
