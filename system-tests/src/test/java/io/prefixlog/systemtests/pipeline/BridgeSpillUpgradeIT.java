package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.PublishConfig;
import io.prefixlog.bridge.proxy.SpillConfig;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.io.IOException;
import java.net.InetSocketAddress;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bridge's spill across a rollback and an upgrade between the previous build ({@link
 * PreviousBuild#BASELINE}, whose spill records are version 1 only) and this one: events spilled
 * while Kafka is unreachable by one build are resent by the other, started on the same spill
 * directory, once each, in order, with nothing quarantined.
 *
 * <p>Kafka is unreachable for the spilling bridge because its bootstrap names a port nothing
 * listens on; the bridge that resends gets the real one.
 */
@ExtendWith(KafkaExtension.class)
class BridgeSpillUpgradeIT {
  private static final int EVENTS = 12;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern SPILLED =
      Pattern.compile("(?m)^prefixlog_proxy_events_spilled_total(?:\\{[^}]*\\})? ([0-9.eE+]+)$");

  private static PreviousBuild previous;

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir Path dir;

  @BeforeAll
  static void buildThePreviousBuild() throws Exception {
    previous = PreviousBuild.of(PreviousBuild.BASELINE);
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void shouldHaveThePreviousBuildResendASpillThisBuildWroteInItsDefaultFormat(KafkaCluster kafka)
      throws Exception {
    // Given: this build's bridge, spill records at their default version, spills every event
    String prefix = "spill-rollback.";
    createRawTopic(kafka, prefix);
    Path spill = dir.resolve("spill");
    List<String> ids = new ArrayList<>();
    try (DemoUpstream upstream = DemoUpstream.start(DemoUpstream.Options.defaults())) {
      try (CaptureProxy proxy =
          CaptureProxy.start(
              ProxyConfig.defaults(URI.create(upstream.baseUrl()), unreachableBootstrap())
                  .withListen("127.0.0.1", 0)
                  .with(MetricsConfig.PORT, -1)
                  .with(PublishConfig.TOPIC_PREFIX, prefix)
                  .withKafka(fastFailure())
                  .with(SpillConfig.RETRY_INTERVAL, Duration.ofMillis(200))
                  .withSpill(spill, 16L << 20, 1L << 20))) {
        for (int i = 0; i < EVENTS; i++) {
          ids.add("by-this-build-" + i);
          assertThat(post(proxy.port(), ids.get(ids.size() - 1))).isEqualTo(200);
        }
        awaitUntil(
            () -> Meters.count(proxy.metrics(), "prefixlog_proxy_events_spilled_total") == EVENTS);
      }

      // When: the bridge is rolled back to the previous build, on the same spill, Kafka reachable
      try (ChildProcess rolledBack =
          previousBridge(
              false,
              kafka.bootstrapServers(),
              prefix,
              spill,
              upstream,
              Ports.free("127.0.0.1"),
              -1)) {

        // Then: every event arrives once, in order, with its body; nothing was quarantined
        awaitUntil(() -> segments(spill).isEmpty());
        assertEveryEventOnceInOrder(kafka, prefix, ids);
        assertThat(rolledBack.isAlive()).as("the previous build's bridge runs").isTrue();
        assertThat(rolledBack.logTail(400)).doesNotContain("quarantined");
      }
      assertThat(quarantine(spill)).isEmpty();
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void shouldResendASpillThePreviousBuildWroteAfterAnUpgradeToTheNewestFormat(KafkaCluster kafka)
      throws Exception {
    // Given: the previous build's bridge spills every event
    String prefix = "spill-upgrade.";
    createRawTopic(kafka, prefix);
    Path spill = dir.resolve("spill");
    List<String> ids = new ArrayList<>();
    try (DemoUpstream upstream = DemoUpstream.start(DemoUpstream.Options.defaults())) {
      int[] ports = Ports.free("127.0.0.1", 2);
      int port = ports[0];
      int metricsPort = ports[1];
      try (ChildProcess old =
          previousBridge(
              true, unreachableBootstrap(), prefix, spill, upstream, port, metricsPort)) {
        // Its metrics endpoint answers first; the proxy listens once it has warmed up.
        awaitUntil(() -> spilled(metricsPort) >= 0 && listening(port));
        for (int i = 0; i < EVENTS; i++) {
          ids.add("by-the-previous-build-" + i);
          assertThat(post(port, ids.get(ids.size() - 1))).isEqualTo(200);
        }
        awaitUntil(() -> spilled(metricsPort) == EVENTS);
        assertThat(old.isAlive()).as("the previous build's bridge runs").isTrue();
      }

      // When: this build's bridge takes over the spill, writing spill records version 2, with
      // Kafka reachable, and captures more
      try (CaptureProxy proxy =
          CaptureProxy.start(
              ProxyConfig.defaults(URI.create(upstream.baseUrl()), kafka.bootstrapServers())
                  .withListen("127.0.0.1", 0)
                  .with(MetricsConfig.PORT, -1)
                  .with(PublishConfig.TOPIC_PREFIX, prefix)
                  .with(SpillConfig.RETRY_INTERVAL, Duration.ofMillis(200))
                  .with(SpillConfig.FORMAT, 2)
                  .withSpill(spill, 16L << 20, 1L << 20))) {
        for (int i = 0; i < 3; i++) {
          ids.add("by-this-build-" + i);
          assertThat(post(proxy.port(), ids.get(ids.size() - 1))).isEqualTo(200);
        }

        // Then: the older events once each, in order, before the newer ones; nothing quarantined
        awaitUntil(() -> segments(spill).isEmpty());
        assertEveryEventOnceInOrder(kafka, prefix, ids);
        assertThat(Meters.gaugeValue(proxy.metrics(), "prefixlog_proxy_spill_quarantined"))
            .isZero();
      }
      assertThat(quarantine(spill)).isEmpty();
    }
  }

  private static void assertEveryEventOnceInOrder(
      KafkaCluster kafka, String prefix, List<String> ids) throws IOException {
    List<ConsumerRecord<String, byte[]>> records =
        Topics.readAtLeast(kafka.bootstrapServers(), prefix + "requests.raw", ids.size(), WAIT);
    List<String> delivered = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      RawRequestEvent event = RawEventFrame.readAsVersion1(record.value());
      // The client's X-Request-Id: this build keeps it beside its capture id, the previous build
      // made it the request id
      String id = event.clientRequestId() != null ? event.clientRequestId() : event.requestId();
      assertThat(event.body()).as("body of %s", id).isEqualTo(body(id));
      delivered.add(id);
    }
    System.err.printf(
        "BridgeSpillUpgradeIT %s: events in %d, delivered %d, distinct %d%n",
        prefix, ids.size(), delivered.size(), delivered.stream().distinct().count());
    assertThat(delivered).containsExactlyElementsOf(ids);
  }

  /**
   * The previous build's bridge in a child JVM: the capture proxy in front of {@code upstream},
   * spilling to {@code spill} what {@code bootstrap} does not take; {@code metricsPort} -1: none. A
   * spilling bridge gives up on a send within two seconds; one that resends takes the producer's
   * defaults (a send that times out client-side after the broker took it is sent again, a duplicate
   * the stream app's dedup drops and this test would count).
   */
  private ChildProcess previousBridge(
      boolean spilling,
      String bootstrap,
      String prefix,
      Path spill,
      DemoUpstream upstream,
      int port,
      int metricsPort)
      throws IOException {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_PROXY_UPSTREAM", upstream.baseUrl());
    settings.put("PREFIXLOG_PROXY_HOST", "127.0.0.1");
    settings.put("PREFIXLOG_PROXY_PORT", Integer.toString(port));
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_TOPIC_PREFIX", prefix);
    settings.put("PREFIXLOG_SPILL_DIR", spill.toString());
    settings.put("PREFIXLOG_SPILL_SEGMENT_BYTES", Long.toString(1L << 20));
    settings.put("PREFIXLOG_SPILL_RETRY_INTERVAL", "200ms");
    if (spilling) {
      fastFailure().forEach((k, v) -> settings.put(kafkaSetting(k), v));
    }
    Properties properties = new Properties();
    properties.putAll(settings);
    String name = prefix + "previous-bridge-" + port;
    Path file = dir.resolve(name + ".properties");
    try (var writer = Files.newBufferedWriter(file)) {
      properties.store(writer, "previous build's bridge");
    }
    return ChildProcess.builder("io.prefixlog.bridge.BridgeMain")
        .classpath(previous.bridgeClasspath())
        .args(List.of("--config", file.toString()))
        .logFile(dir.resolve(name + ".log"))
        .start();
  }

  /** {@code delivery.timeout.ms} as the bridge's pass-through setting names it. */
  private static String kafkaSetting(String producerSetting) {
    return "PREFIXLOG_KAFKA_" + producerSetting.toUpperCase().replace('.', '_');
  }

  private static Map<String, String> fastFailure() {
    return Map.of(
        "delivery.timeout.ms", "2000",
        "request.timeout.ms", "1000",
        "linger.ms", "0",
        "max.block.ms", "500",
        "reconnect.backoff.max.ms", "200");
  }

  /** The spill counter of a bridge's metrics endpoint, or -1 while it does not answer. */
  private long spilled(int metricsPort) {
    try {
      String text =
          http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher matcher = SPILLED.matcher(text);
      return matcher.find() ? (long) Double.parseDouble(matcher.group(1)) : 0;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private int post(int port, String requestId) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("X-Request-Id", requestId)
                .header("X-Session-ID", "one-session")
                .POST(HttpRequest.BodyPublishers.ofString(body(requestId), StandardCharsets.UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  private static String body(String requestId) {
    return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + requestId + "\"}]}";
  }

  private static void createRawTopic(KafkaCluster kafka, String prefix) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin
          .createTopics(List.of(new NewTopic(prefix + "requests.raw", 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /** A bootstrap address nothing listens on: the producer never reaches a broker. */
  private static String unreachableBootstrap() throws IOException {
    return "127.0.0.1:" + Ports.free("127.0.0.1");
  }

  private static List<Path> segments(Path spill) throws IOException {
    try (Stream<Path> files = Files.list(spill)) {
      return files.filter(f -> f.toString().endsWith(".log")).toList();
    }
  }

  private static List<Path> quarantine(Path spill) throws IOException {
    Path quarantine = spill.resolve("quarantine");
    if (!Files.isDirectory(quarantine)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(quarantine)) {
      return files.toList();
    }
  }

  private static void awaitUntil(java.util.concurrent.Callable<Boolean> condition) {
    await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(condition);
  }
}
