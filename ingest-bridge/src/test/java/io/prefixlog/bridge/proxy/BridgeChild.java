package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.BridgeMain;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.zeromq.ZMQ;

/**
 * The bridge in a JVM of its own with a small heap and {@code -XX:+ExitOnOutOfMemoryError}, as the
 * image runs it, for the load tests whose failure is the process dying ({@link HeaderOnlyLoadIT},
 * {@link CaptureMemoryIT}): a test JVM would die with it. Its log goes to {@code bridge.log} in the
 * test's directory; its settings are the environment, as in a container.
 */
final class BridgeChild implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final Path log;
  private final int port;
  private final int metricsPort;

  private BridgeChild(Process process, Path log, int port, int metricsPort) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.metricsPort = metricsPort;
  }

  /**
   * Starts the bridge with a heap of {@code heapMiB}, proxying to {@code upstream} and publishing
   * to {@code kafka} under {@code topicPrefix}, with {@code env} on top of the loopback defaults.
   */
  static BridgeChild start(
      Path dir,
      KafkaCluster kafka,
      String upstream,
      String topicPrefix,
      int heapMiB,
      Map<String, String> env)
      throws IOException {
    int[] ports = Ports.free("127.0.0.1", 2);
    int port = ports[0];
    int metricsPort = ports[1];
    Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
    Path log = dir.resolve("bridge.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                java.toString(),
                "-Xmx" + heapMiB + "m",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                BridgeMain.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> environment = builder.environment();
    environment.put("PREFIXLOG_PROXY_UPSTREAM", upstream);
    environment.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    environment.put("PREFIXLOG_TOPIC_PREFIX", topicPrefix);
    environment.put("PREFIXLOG_PROXY_HOST", "127.0.0.1");
    environment.put("PREFIXLOG_PROXY_PORT", Integer.toString(port));
    environment.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));
    environment.put("PREFIXLOG_SESSION_SECRET", "bridge-child-test-secret");
    environment.putAll(env);
    return new BridgeChild(builder.start(), log, port, metricsPort);
  }

  Process process() {
    return process;
  }

  int port() {
    return port;
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** Waits for {@code /health} to say ok; fails at once, with the log, if the bridge died. */
  void awaitHealthy() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      assertAlive();
      try {
        if (get("/health").contains("\"status\":\"ok\"")) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the bridge did not become healthy:\n" + log());
  }

  void assertAlive() {
    assertThat(process.isAlive()).as("the bridge died:%n%s", log()).isTrue();
  }

  /** The metrics endpoint's text. */
  String metrics() throws Exception {
    return get("/metrics");
  }

  /**
   * Polls the metrics until {@code until} holds on them (at most 60 s), failing at once, with the
   * log, if the bridge died; returns the metrics that satisfied it.
   */
  String awaitMetrics(java.util.function.Predicate<String> until, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = "";
    while (System.nanoTime() < deadline) {
      assertAlive();
      last = metrics();
      if (until.test(last)) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the bridge's metrics never showed " + what + ":\n" + last);
  }

  /** A small chat completion through the bridge's proxy: what a client sees while it works. */
  HttpResponse<String> chat() throws Exception {
    return send(
        HttpRequest.newBuilder(uri("/v1/chat/completions"))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
            .build(),
        Duration.ofSeconds(30));
  }

  /** A series' value now; a bridge that died while asked fails with its log. */
  double metric(String series) throws Exception {
    try {
      return value(metrics(), series);
    } catch (IOException e) {
      Thread.sleep(500); // let a dying process finish exiting
      assertAlive();
      throw e;
    }
  }

  /**
   * Sends {@code [topic "", seq, payload]} to the bridge's subscriber, as vLLM's PUB frames a
   * batch.
   */
  static void publishBatch(ZMQ.Socket pub, long seq, byte[] payload) {
    pub.sendMore(new byte[0]);
    pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
    pub.send(payload);
  }

  /** A counter or gauge's value in {@code metrics}: the first line matching {@code series}. */
  static double value(String metrics, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private String get(String path) throws Exception {
    try {
      return send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              Duration.ofSeconds(10))
          .body();
    } catch (TimeoutException e) {
      return ""; // asked again by the caller, until its own deadline
    }
  }

  /**
   * One client for the tests, and a bound on the whole exchange: JDK 17's request timeout stops at
   * the response head (JDK-8208693), and a metrics call once waited forever for a body whose bytes
   * had all arrived, until the test's timeout.
   */
  static HttpResponse<String> send(HttpRequest request, Duration bound) throws Exception {
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
  long heapUsedMiB() throws Exception {
    Path jcmd =
        Path.of(ProcessHandle.current().info().command().orElseThrow()).resolveSibling("jcmd");
    run(jcmd.toString(), Long.toString(process.pid()), "GC.run");
    String info = run(jcmd.toString(), Long.toString(process.pid()), "GC.heap_info");
    Matcher used = Pattern.compile("used (\\d+)K").matcher(info);
    assertThat(used.find()).as(info).isTrue();
    return Long.parseLong(used.group(1)) / 1024;
  }

  /** Runs a tool, bounded: a hung attach must fail this phase, not the whole test's timeout. */
  private static String run(String... command) throws Exception {
    Path output = Files.createTempFile("bridge-child", ".out");
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

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
