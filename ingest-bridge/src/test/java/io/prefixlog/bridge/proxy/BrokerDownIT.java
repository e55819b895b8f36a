package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.schemas.request.RawEventFrame;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy while the broker is down, on a broker of its own (stopped and restarted on the same
 * data directory and ports): the proxy keeps answering; without a spill every event Kafka refused
 * is counted dropped, with a spill every one is spilled, and after the broker returns the spilled
 * events arrive once each, in order, before the newer ones.
 */
@Timeout(value = 170, unit = TimeUnit.SECONDS)
class BrokerDownIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern VOTERS =
      Pattern.compile("controller\\.quorum\\.voters=\\d+@[^:]+:(\\d+)");

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void shouldKeepServingCountDropsExactlyAndResendSpilledEventsInOrder(@TempDir Path dir)
      throws Exception {
    // Given: a broker of our own, two proxies (one dropping, one spilling) with short timeouts
    KafkaBroker broker = KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("broker")));
    Path spillDir = dir.resolve("spill");
    try (TestUpstream upstream = new TestUpstream()) {
      String bootstrap = broker.bootstrapServers();
      TopicReader.createTopic(bootstrap, "drop.requests.raw");
      TopicReader.createTopic(bootstrap, "spill.requests.raw");
      Map<String, String> fastFailure =
          Map.of(
              "delivery.timeout.ms", "2000",
              "request.timeout.ms", "1000",
              "linger.ms", "0",
              "max.block.ms", "500",
              "reconnect.backoff.max.ms", "200");
      ProxyConfig base =
          ProxyConfig.defaults(upstream.uri(), bootstrap)
              .withListen("127.0.0.1", 0)
              .with(MetricsConfig.PORT, -1)
              .with(CaptureConfig.SESSION_SECRET, "test-session-secret-0123456789")
              .withKafka(fastFailure)
              .with(SpillConfig.RETRY_INTERVAL, Duration.ofMillis(200))
              // Version 2 keeps the capture time of a spilled record (checked below).
              .with(SpillConfig.FORMAT, 2);
      List<String> spillIds = new ArrayList<>();
      try (CaptureProxy dropping =
              CaptureProxy.start(base.with(PublishConfig.TOPIC_PREFIX, "drop."));
          CaptureProxy spilling =
              CaptureProxy.start(
                  base.with(PublishConfig.TOPIC_PREFIX, "spill.")
                      .withSpill(spillDir, 16L << 20, 1L << 20))) {
        for (int i = 0; i < 2; i++) {
          assertThat(post(dropping, "up-drop-" + i)).isEqualTo(200);
          assertThat(post(spilling, "up-spill-" + i)).isEqualTo(200);
          spillIds.add("up-spill-" + i);
        }
        CaptureProxyIT.await(() -> published(dropping) == 2 && published(spilling) == 2);

        // When: the broker stops, and requests keep coming
        broker.close();
        for (int i = 0; i < 3; i++) {
          assertThat(post(dropping, "down-drop-" + i)).isEqualTo(200);
        }
        for (int i = 0; i < 4; i++) {
          assertThat(post(spilling, "down-spill-" + i)).isEqualTo(200);
          spillIds.add("down-spill-" + i);
        }

        // Then: exact counts, nothing published
        awaitLong(
            () ->
                Meters.count(dropping.metrics(), ProxyMetrics.DROPPED, "reason", "kafka") == 3
                    && Meters.count(spilling.metrics(), ProxyMetrics.SPILLED) == 4);
        assertThat(published(dropping)).isEqualTo(2);
        assertThat(published(spilling)).isEqualTo(2);
        assertThat(Meters.count(spilling.metrics(), ProxyMetrics.DROPPED, "reason", "kafka"))
            .isZero();
        try (Stream<Path> files = Files.list(spillDir)) {
          assertThat(files.filter(f -> f.toString().endsWith(".log")).count()).isEqualTo(1);
        }

        // When: the broker returns on the same data and ports; more requests arrive
        broker = restart(broker, dir.resolve("broker"));
        for (int i = 0; i < 2; i++) {
          assertThat(post(spilling, "back-spill-" + i)).isEqualTo(200);
          spillIds.add("back-spill-" + i);
        }

        // Then: every spilled event arrives once, in order, before the newer ones
        awaitLong(() -> Meters.count(spilling.metrics(), ProxyMetrics.RESENT) >= 4);
        try (TopicReader reader =
            new TopicReader(broker.bootstrapServers(), "spill.requests.raw")) {
          reader.await(spillIds.size(), WAIT);
          List<ConsumerRecord<String, byte[]>> records = reader.settle(Duration.ofSeconds(2));
          assertThat(requestIds(records)).containsExactlyElementsOf(spillIds);
          // Spilled or not, each record's timestamp is its capture time, not its (re)send time.
          for (ConsumerRecord<String, byte[]> record : records) {
            assertThat(record.timestamp())
                .as("record timestamp of %s", requestIds(List.of(record)))
                .isEqualTo(RawEventFrame.readAsVersion1(record.value()).ts());
          }
        }
        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), "drop.requests.raw")) {
          List<ConsumerRecord<String, byte[]>> records = reader.settle(Duration.ofSeconds(2));
          assertThat(requestIds(records)).containsExactly("up-drop-0", "up-drop-1");
        }
        // The newer ones went through the spill too unless it had drained before they came.
        assertThat(published(spilling)).isEqualTo(8);
        assertThat(Meters.count(spilling.metrics(), ProxyMetrics.RESENT))
            .isEqualTo(Meters.count(spilling.metrics(), ProxyMetrics.SPILLED));
        assertThat(Meters.count(spilling.metrics(), ProxyMetrics.DROPPED, "reason", "queue_full"))
            .isZero();
        try (Stream<Path> files = Files.list(spillDir)) {
          assertThat(files.filter(f -> f.toString().endsWith(".log"))).isEmpty();
        }
      }
    } finally {
      broker.close();
    }
  }

  @Test
  void shouldQuarantineACorruptSpilledRecordAndResendEveryOtherOnceAfterARestart(@TempDir Path dir)
      throws Exception {
    // Given: six events spilled while the broker is down, then the bridge stops
    KafkaBroker broker = KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("broker")));
    Path spillDir = dir.resolve("spill");
    List<String> ids = new ArrayList<>();
    try (TestUpstream upstream = new TestUpstream()) {
      TopicReader.createTopic(broker.bootstrapServers(), "corrupt.requests.raw");
      ProxyConfig config =
          ProxyConfig.defaults(upstream.uri(), broker.bootstrapServers())
              .withListen("127.0.0.1", 0)
              .with(MetricsConfig.PORT, -1)
              .with(CaptureConfig.SESSION_SECRET, "test-session-secret-0123456789")
              .with(PublishConfig.TOPIC_PREFIX, "corrupt.")
              .withKafka(
                  Map.of(
                      "delivery.timeout.ms", "2000",
                      "request.timeout.ms", "1000",
                      "linger.ms", "0",
                      "max.block.ms", "500",
                      "reconnect.backoff.max.ms", "200"))
              .with(SpillConfig.RETRY_INTERVAL, Duration.ofMillis(200))
              // Version 2 records: recordOffset reads their 20-byte header.
              .with(SpillConfig.FORMAT, 2)
              .withSpill(spillDir, 16L << 20, 1L << 20);
      try (CaptureProxy proxy = CaptureProxy.start(config)) {
        broker.close();
        for (int i = 0; i < 6; i++) {
          assertThat(post(proxy, "spilled-" + i)).isEqualTo(200);
          ids.add("spilled-" + i);
        }
        awaitLong(() -> Meters.count(proxy.metrics(), ProxyMetrics.SPILLED) == 6);
      }

      // When: a byte of the fourth record's value flips on disk, the broker and the bridge return
      Path segment;
      try (Stream<Path> files = Files.list(spillDir)) {
        segment = files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
      }
      long fourth = recordOffset(segment, 3);
      try (FileChannel channel =
          FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        ByteBuffer one = ByteBuffer.allocate(1);
        channel.read(one, fourth + 40);
        channel.write(ByteBuffer.wrap(new byte[] {(byte) (one.get(0) ^ 0x01)}), fourth + 40);
      }
      broker = broker.restart();
      try (CaptureProxy proxy = CaptureProxy.start(config)) {
        assertThat(post(proxy, "after-restart")).isEqualTo(200);
        ids.remove("spilled-3");
        ids.add("after-restart");

        // Then: every other event arrives once, in order; the corrupt one is counted and kept
        try (TopicReader reader =
            new TopicReader(broker.bootstrapServers(), "corrupt.requests.raw")) {
          reader.await(ids.size(), WAIT);
          List<String> delivered = requestIds(reader.settle(Duration.ofSeconds(2)));
          System.err.printf(
              "BrokerDownIT spill corruption: events in 7, delivered %d, duplicates %d,"
                  + " quarantined %d%n",
              delivered.size(),
              delivered.size() - delivered.stream().distinct().count(),
              quarantined(proxy));
          assertThat(delivered).containsExactlyElementsOf(ids);
        }
        assertThat(quarantined(proxy)).isEqualTo(1);
        try (Stream<Path> files = Files.list(spillDir.resolve(SpillStore.QUARANTINE_DIR))) {
          assertThat(files.toList()).hasSize(1);
        }
      }
    } finally {
      broker.close();
    }
  }

  /** The quarantine gauge. */
  private static long quarantined(CaptureProxy proxy) {
    double value = Meters.gaugeValue(proxy.metrics(), "prefixlog_proxy_spill_quarantined");
    assertThat(value).as("the quarantine gauge is registered").isNotNaN();
    return (long) value;
  }

  /**
   * The offset of record {@code index} in a spill segment (records are read header by header:
   * magic, key length, value length, capture time).
   */
  private static long recordOffset(Path segment, int index) throws IOException {
    long offset = 0;
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
      for (int i = 0; i < index; i++) {
        ByteBuffer header = ByteBuffer.allocate(20);
        channel.read(header, offset);
        header.flip();
        header.getInt();
        offset += 20L + header.getInt() + header.getInt() + 4;
      }
    }
    return offset;
  }

  private int post(CaptureProxy proxy, String requestId) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + proxy.port() + "/v1/chat/completions"))
                .header("X-Request-Id", requestId)
                .header("X-Session-ID", "one-session")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\""
                            + requestId
                            + "\"}]}",
                        StandardCharsets.UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  private static long published(CaptureProxy proxy) {
    return Meters.count(proxy.metrics(), ProxyMetrics.PUBLISHED);
  }

  private static List<String> requestIds(List<ConsumerRecord<String, byte[]>> records)
      throws IOException {
    List<String> ids = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      // The client's X-Request-Id: the event's own request_id is its capture id.
      ids.add(RawEventFrame.readAsVersion1(record.value()).clientRequestId());
    }
    return ids;
  }

  private static KafkaBroker restart(KafkaBroker stopped, Path dataDir) throws IOException {
    int brokerPort = Integer.parseInt(stopped.bootstrapServers().replaceAll(".*:", ""));
    Matcher voters =
        VOTERS.matcher(
            Files.readString(dataDir.resolve("server.properties"), StandardCharsets.UTF_8));
    assertThat(voters.find()).isTrue();
    int controllerPort = Integer.parseInt(voters.group(1));
    return KafkaBroker.start(
        KafkaBroker.Options.defaults(dataDir)
            .withBrokerPort(brokerPort)
            .withControllerPort(controllerPort));
  }

  private static void awaitLong(java.util.function.BooleanSupplier condition) {
    await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(condition::getAsBoolean);
  }
}
