package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load test of issue 13, item 1, on loopback: the bridge in its own JVM with a {@value
 * #HEAP_MIB} MiB heap (and {@code ExitOnOutOfMemoryError}), 1,000 connections that each send only
 * the head of a 16 MiB POST and hold it, and real requests made meanwhile, which must all be
 * served. The heap used, after a full GC, must stay under {@value #BOUND_MIB} MiB. Before the
 * capture grew with the bytes that arrived, each such head took 16 MiB: the child died of the first
 * few dozen.
 *
 * <p>Each phase has its own deadline and prints its time, so a slow machine shows which one was
 * slow. When the held connections go away, the bridge must log no error (Vert.x logged one {@code
 * Stream reset} per aborted upstream request at ERROR), and on SIGTERM it must stop within its
 * drain timeout.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HeaderOnlyLoadIT {
  private static final int CONNECTIONS = 1000;
  private static final int REQUESTS = 50;
  static final int HEAP_MIB = 128;
  static final int BOUND_MIB = 64;

  /** The drain timeout the bridge gets, and how long after SIGTERM it may take to exit. */
  private static final int DRAIN_SECONDS = 5;

  private static final int STOP_SECONDS = DRAIN_SECONDS + 15;

  @TempDir Path dir;

  @Test
  void shouldServeRequestsWhileAThousandHeaderOnlyConnectionsAreHeld(KafkaCluster kafka)
      throws Exception {
    // Given: the engine, and the bridge in a child JVM with a small heap
    TopicReader.createTopic(kafka.bootstrapServers(), "load.requests.raw");
    try (DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults());
        BridgeChild bridge =
            BridgeChild.start(
                dir,
                kafka,
                engine.baseUrl(),
                "load.",
                HEAP_MIB,
                Map.of(
                    "PREFIXLOG_PROXY_EVENT_LOOPS",
                    "2",
                    // Held for the whole test: the point is what they cost while held, not that
                    // they time out.
                    "PREFIXLOG_PROXY_HEADER_TIMEOUT",
                    "5m",
                    "PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT",
                    "5m",
                    "PREFIXLOG_PROXY_DRAIN_TIMEOUT",
                    DRAIN_SECONDS + "s"))) {
      Phases phases = new Phases();
      List<Socket> held = new ArrayList<>();
      try {
        bridge.awaitHealthy();
        long before = bridge.heapUsedMiB();
        phases.done("bridge healthy");

        // When: a thousand connections send the head of a 16 MiB POST and nothing more
        byte[] head =
            ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 16777216\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < CONNECTIONS; i++) {
          Socket socket = new Socket("127.0.0.1", bridge.port());
          held.add(socket);
          OutputStream out = socket.getOutputStream();
          out.write(head);
          out.flush();
        }
        phases.done("connections opened");
        awaitClientConnections(bridge, n -> n >= CONNECTIONS, "all held");
        phases.done("connections held");

        // Then: real requests are served meanwhile
        int ok = 0;
        for (int i = 0; i < REQUESTS; i++) {
          HttpResponse<String> response =
              BridgeChild.send(
                  HttpRequest.newBuilder(bridge.uri("/v1/chat/completions"))
                      .timeout(Duration.ofSeconds(20))
                      .header("Content-Type", "application/json")
                      .header("X-Session-ID", "load-" + i)
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"user\","
                                  + "\"content\":\"hello "
                                  + i
                                  + "\"}]}"))
                      .build(),
                  Duration.ofSeconds(30));
          if (response.statusCode() == 200) {
            ok++;
          }
        }
        phases.done("requests served");
        assertThat(ok).as("real requests served").isEqualTo(REQUESTS);
        // and the heap holds the thousand heads within the bound
        long with = bridge.heapUsedMiB();
        phases.done("heap measured");
        System.out.printf(
            "HeaderOnlyLoadIT: heap used after a full GC: %d MiB before, %d MiB with %d"
                + " header-only connections of 16 MiB POSTs held (bound %d MiB, -Xmx%dm);"
                + " %d/%d real requests served%n",
            before, with, CONNECTIONS, BOUND_MIB, HEAP_MIB, ok, REQUESTS);
        assertThat(with).isLessThanOrEqualTo(BOUND_MIB);
        bridge.assertAlive();

        // and when the held clients go away and the bridge is told to stop, it stops in time,
        // with no error logged
        closeAll(held);
        // (the HTTP client's keep-alive connection may stay open)
        awaitClientConnections(bridge, n -> n <= 1, "all closed");
        phases.done("connections closed");
        bridge.process().destroy();
        assertThat(bridge.process().waitFor(STOP_SECONDS, TimeUnit.SECONDS))
            .as("the bridge stopped within %d s of SIGTERM:%n%s", STOP_SECONDS, bridge.log())
            .isTrue();
        phases.done("bridge stopped");
        assertThat(bridge.log()).contains("capture proxy stopped").doesNotContain(" ERROR ");
      } finally {
        closeAll(held);
        System.out.println("HeaderOnlyLoadIT phases: " + phases);
      }
    }
  }

  /** How long each phase took, printed whether the test passes or not. */
  private static final class Phases {
    private final StringBuilder done = new StringBuilder();
    private long start = System.nanoTime();

    void done(String phase) {
      long now = System.nanoTime();
      done.append(done.length() == 0 ? "" : ", ")
          .append(phase)
          .append(' ')
          .append(TimeUnit.NANOSECONDS.toMillis(now - start))
          .append(" ms");
      start = now;
    }

    @Override
    public String toString() {
      return done.toString();
    }
  }

  private static void closeAll(List<Socket> sockets) throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  /** Waits until the bridge's client-connection gauge satisfies {@code until}. */
  private static void awaitClientConnections(BridgeChild bridge, IntPredicate until, String what)
      throws Exception {
    bridge.awaitMetrics(
        m ->
            m.contains("prefixlog_proxy_client_connections ")
                && until.test((int) BridgeChild.value(m, "prefixlog_proxy_client_connections")),
        "client connections " + what);
  }
}
