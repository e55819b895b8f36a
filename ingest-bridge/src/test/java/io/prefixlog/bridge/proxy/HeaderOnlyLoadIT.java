package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.BridgeMain;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  @Test
  void shouldServeRequestsWhileAThousandHeaderOnlyConnectionsAreHeld(KafkaCluster kafka)
      throws Exception {
    // Given: the engine, and the bridge in a child JVM with a small heap
    int proxyPort = freePort();
    int metricsPort = freePort();
    TopicReader.createTopic(kafka.bootstrapServers(), "load.requests.raw");
    try (DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults())) {
      Phases phases = new Phases();
      Process bridge = startBridge(kafka, engine, proxyPort, metricsPort);
      List<Socket> held = new ArrayList<>();
      try {
        awaitHealthy(metricsPort, bridge);
        long before = heapUsedMiB(bridge);
        phases.done("bridge healthy");

        // When: a thousand connections send the head of a 16 MiB POST and nothing more
        byte[] head =
            ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 16777216\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < CONNECTIONS; i++) {
          Socket socket = new Socket("127.0.0.1", proxyPort);
          held.add(socket);
          OutputStream out = socket.getOutputStream();
          out.write(head);
          out.flush();
        }
        phases.done("connections opened");
        awaitClientConnections(metricsPort, n -> n >= CONNECTIONS, "all held", bridge);
        phases.done("connections held");

        // Then: real requests are served meanwhile
        int ok = 0;
        for (int i = 0; i < REQUESTS; i++) {
          HttpResponse<String> response =
              send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + proxyPort + "/v1/chat/completions"))
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
        long with = heapUsedMiB(bridge);
        phases.done("heap measured");
        System.out.printf(
            "HeaderOnlyLoadIT: heap used after a full GC: %d MiB before, %d MiB with %d"
                + " header-only connections of 16 MiB POSTs held (bound %d MiB, -Xmx%dm);"
                + " %d/%d real requests served%n",
            before, with, CONNECTIONS, BOUND_MIB, HEAP_MIB, ok, REQUESTS);
        assertThat(with).isLessThanOrEqualTo(BOUND_MIB);
        assertThat(bridge.isAlive()).isTrue();

        // and when the held clients go away and the bridge is told to stop, it stops in time,
        // with no error logged
        closeAll(held);
        // (the HTTP client's keep-alive connection may stay open)
        awaitClientConnections(metricsPort, n -> n <= 1, "all closed", bridge);
        phases.done("connections closed");
        bridge.destroy();
        assertThat(bridge.waitFor(STOP_SECONDS, TimeUnit.SECONDS))
            .as("the bridge stopped within %d s of SIGTERM:%n%s", STOP_SECONDS, log())
            .isTrue();
        phases.done("bridge stopped");
        assertThat(log()).contains("capture proxy stopped").doesNotContain(" ERROR ");
      } finally {
        closeAll(held);
        if (bridge.isAlive()) {
          bridge.destroyForcibly();
        }
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

  private Process startBridge(KafkaCluster kafka, DemoUpstream engine, int port, int metrics)
      throws IOException {
    Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
    ProcessBuilder builder =
        new ProcessBuilder(
                java.toString(),
                "-Xmx" + HEAP_MIB + "m",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                BridgeMain.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("bridge.log").toFile());
    Map<String, String> env = builder.environment();
    env.put("PREFIXLOG_PROXY_UPSTREAM", engine.baseUrl());
    env.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("PREFIXLOG_TOPIC_PREFIX", "load.");
    env.put("PREFIXLOG_PROXY_HOST", "127.0.0.1");
    env.put("PREFIXLOG_PROXY_PORT", Integer.toString(port));
    env.put("PREFIXLOG_METRICS_PORT", Integer.toString(metrics));
    env.put("PREFIXLOG_SESSION_SECRET", "header-only-load-it-secret");
    env.put("PREFIXLOG_PROXY_EVENT_LOOPS", "2");
    // Held for the whole test: the point is what they cost while held, not that they time out.
    env.put("PREFIXLOG_PROXY_HEADER_TIMEOUT", "5m");
    env.put("PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT", "5m");
    env.put("PREFIXLOG_PROXY_DRAIN_TIMEOUT", DRAIN_SECONDS + "s");
    return builder.start();
  }

  private void awaitHealthy(int metricsPort, Process bridge) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      assertThat(bridge.isAlive()).as(log()).isTrue();
      try {
        if (metrics(metricsPort, "/health").contains("\"status\":\"ok\"")) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the bridge did not become healthy:\n" + log());
  }

  /** Waits until the bridge's client-connection gauge satisfies {@code until}. */
  private void awaitClientConnections(
      int metricsPort, IntPredicate until, String what, Process bridge) throws Exception {
    Pattern gauge = Pattern.compile("(?m)^prefixlog_proxy_client_connections (\\d+)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = "";
    while (System.nanoTime() < deadline) {
      assertThat(bridge.isAlive()).as("the bridge died:\n" + log()).isTrue();
      last = metrics(metricsPort, "/metrics");
      Matcher m = gauge.matcher(last);
      if (m.find() && until.test(Integer.parseInt(m.group(1)))) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "the bridge's client connections were not " + what + " in time:\n" + last);
  }

  private static String metrics(int port, String path) throws Exception {
    try {
      return send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              Duration.ofSeconds(10))
          .body();
    } catch (TimeoutException e) {
      return ""; // asked again by the caller, until its own deadline
    }
  }

  /**
   * One client for the test, and a bound on the whole exchange: JDK 17's request timeout stops at
   * the response head (JDK-8208693), and a metrics call here once waited forever for a body whose
   * bytes had all arrived, until the test's timeout.
   */
  private static HttpResponse<String> send(HttpRequest request, Duration bound) throws Exception {
    CompletableFuture<HttpResponse<String>> response =
        HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    try {
      return response.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      response.cancel(true);
    }
  }

  /** Heap in use after a full GC, by {@code jcmd} (the JDK's own tool) against the child. */
  private static long heapUsedMiB(Process bridge) throws Exception {
    Path jcmd =
        Path.of(ProcessHandle.current().info().command().orElseThrow()).resolveSibling("jcmd");
    run(jcmd.toString(), Long.toString(bridge.pid()), "GC.run");
    String info = run(jcmd.toString(), Long.toString(bridge.pid()), "GC.heap_info");
    Matcher used = Pattern.compile("used (\\d+)K").matcher(info);
    assertThat(used.find()).as(info).isTrue();
    return Long.parseLong(used.group(1)) / 1024;
  }

  /** Runs a tool, bounded: a hung attach must fail this phase, not the whole test's timeout. */
  private static String run(String... command) throws Exception {
    Path output = Files.createTempFile("header-only-load-it", ".out");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not finish within 30 s");
      }
      return Files.readString(output, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(output);
    }
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("bridge.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
