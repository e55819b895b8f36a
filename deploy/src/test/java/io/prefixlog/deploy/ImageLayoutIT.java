package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.Watchdog;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.File;
import java.io.IOException;
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
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container images' class path works: each app's main, started exactly as the image starts it
 * ({@code java -cp '<module>/target/lib/*:<module jar>' MAIN}, the files deploy/docker/Dockerfile
 * copies, nothing from the test class path but the child-process watchdog), runs against a real
 * broker: the stream app processes a record (its RocksDB stores open, a dead letter comes out), and
 * the bridge (capture proxy and KV-event subscriber, BridgeMain) serves health and proxies.
 */
@ExtendWith(KafkaExtension.class)
class ImageLayoutIT {
  private static final Path ROOT = Repository.root();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldRunTheStreamAppFromItsImageLayout(KafkaCluster kafka) throws Exception {
    // Given
    int metricsPort = Ports.free("127.0.0.1");
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", "layout.");
    settings.put("PREFIXLOG_APPLICATION_ID", "layout-stream-app");
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state").toString());
    settings.put("PREFIXLOG_PARTITIONS", "2");
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));

    // When
    try (ChildProcess app =
        imageLayoutChild("stream-app", "io.prefixlog.streams.StreamApp", settings)) {
      awaitHealthy(app, metricsPort);
      try (KafkaProducer<String, byte[]> producer =
          new KafkaProducer<>(
              Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()),
              new StringSerializer(),
              new ByteArraySerializer())) {
        producer
            .send(
                new ProducerRecord<>(
                    "layout.requests.raw", "s1", "not json".getBytes(StandardCharsets.UTF_8)))
            .get();
      }

      // Then: the processor ran and dead-lettered the record
      List<ConsumerRecord<String, String>> dead = readOne(kafka, "layout.dlq");
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).value()).contains("invalid_json");
      assertThat(app.isAlive()).as(app.logTail(30)).isTrue();
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldRunTheBridgeFromItsImageLayout(KafkaCluster kafka) throws Exception {
    // Given: the proxy in front of an engine that is not up yet, and an engine KV endpoint nobody
    // listens on yet (ZMQ connects when it appears)
    int[] ports = Ports.free("127.0.0.1", 4);
    int metricsPort = ports[0];
    int proxyPort = ports[1];
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", "layout.");
    settings.put("PREFIXLOG_PROXY_UPSTREAM", "http://127.0.0.1:" + ports[2]);
    settings.put("PREFIXLOG_PROXY_PORT", Integer.toString(proxyPort));
    settings.put("PREFIXLOG_KV_ENDPOINTS", "tcp://127.0.0.1:" + ports[3]);
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));

    // When
    try (ChildProcess bridge =
        imageLayoutChild("ingest-bridge", "io.prefixlog.bridge.BridgeMain", settings)) {

      // Then: both parts run (the proxy answers for the absent engine with a gateway error)
      awaitHealthy(bridge, metricsPort);
      assertThat(get(metricsPort, "/metrics")).contains("prefixlog_");
      HttpResponse<String> proxied =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxyPort + "/v1/models"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(proxied.statusCode()).as(bridge.logTail(30)).isEqualTo(502);
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldStartTheDemoEngineFromItsOwnImageLayout() throws Exception {
    // Given: the demo engine's module (its own image; not in the bridge's jar any more)
    int[] ports = Ports.free("127.0.0.1", 4);
    int statusPort = ports[0];
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_DEMO_PORT", Integer.toString(ports[1]));
    settings.put("PREFIXLOG_DEMO_KV_PORT", Integer.toString(ports[2]));
    settings.put("PREFIXLOG_DEMO_KV_REPLAY_PORT", Integer.toString(ports[3]));
    settings.put("PREFIXLOG_DEMO_STATUS_PORT", Integer.toString(statusPort));

    // When
    try (ChildProcess engine =
        imageLayoutChild("demo-engine", "io.prefixlog.demo.DemoEngineMain", settings)) {

      // Then: its status endpoint (compose's health check) answers
      await()
          .alias("the demo engine's GET /kv")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(engine.isAlive()).as(engine.logTail(30)).isTrue();
                assertThat(
                        HTTP.send(
                                HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + statusPort + "/kv"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                                HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
              });
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldRefuseToStartComposesBridgeWithAPlaceholderSecret() throws Exception {
    // Given: the bridge's environment as docker-compose renders it, with a placeholder secret
    // (compose accepts any non-empty value; judging it is the bridge's job)
    String placeholder = "change-me-compose-session-secret";
    Path envFile = dir.resolve("placeholder.env");
    Files.writeString(
        envFile,
        Files.readString(DockerCompose.deploymentEnv())
                .replaceAll("(?m)^PREFIXLOG_SESSION_SECRET=.*$", "")
            + "PREFIXLOG_SESSION_SECRET="
            + placeholder
            + "\n");
    DockerCompose.Result config =
        DockerCompose.require()
            .run(ROOT, envFile, "-f", ROOT.resolve(Repository.COMPOSE_FILE).toString(), "config");
    assertThat(config.exitCode()).as(config.stderr()).isZero();
    Map<String, String> settings =
        ComposeSafeDefaultsTest.bridgeEnvironment(ComposeFile.parse(config.stdout()));
    assertThat(settings).containsEntry("PREFIXLOG_SESSION_SECRET", placeholder);

    // When: started as its image starts it
    try (ChildProcess bridge =
        imageLayoutChild("ingest-bridge", "io.prefixlog.bridge.BridgeMain", settings)) {
      OptionalInt exit = bridge.waitFor(Duration.ofSeconds(60));

      // Then: it exits 2 naming the variable and the address, never printing the value
      assertThat(exit).as(bridge.logTail(30)).hasValue(2);
      String log = Files.readString(bridge.logFile());
      assertThat(log)
          .contains("prefixlog ingest-bridge: PREFIXLOG_SESSION_SECRET")
          .contains("PREFIXLOG_PROXY_HOST=0.0.0.0")
          .doesNotContain(placeholder);
    }
  }

  /** The image's class path: the module's target/lib and jar, plus the watchdog's location. */
  private ChildProcess imageLayoutChild(
      String module, String mainClass, Map<String, String> settings)
      throws IOException, java.net.URISyntaxException {
    Path target = ROOT.resolve(module).resolve("target");
    assertThat(target.resolve("lib"))
        .as("%s/target/lib (written by `mvn package`)", module)
        .isDirectory();
    List<String> classpath = new ArrayList<>();
    classpath.add(target.resolve("lib") + File.separator + "*");
    try (Stream<Path> files = Files.list(target)) {
      files
          // The module's own jar, not its test-jar (which .dockerignore keeps out of the image).
          .filter(
              f ->
                  f.getFileName()
                      .toString()
                      .matches("prefixlog-" + module + "-[^-]+(-SNAPSHOT)?\\.jar"))
          .forEach(f -> classpath.add(f.toString()));
    }
    assertThat(classpath).as("%s jar in %s", module, target).hasSize(2);
    classpath.add(
        Path.of(Watchdog.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString());
    Properties properties = new Properties();
    properties.putAll(settings);
    Path config = dir.resolve(module + ".properties");
    try (var writer = Files.newBufferedWriter(config)) {
      properties.store(writer, module + " from its image layout");
    }
    return ChildProcess.builder(mainClass)
        .classpath(String.join(File.pathSeparator, classpath))
        .args(List.of("--config", config.toString()))
        .logFile(dir.resolve(module + ".log"))
        .start();
  }

  private static void awaitHealthy(ChildProcess child, int port) {
    await()
        .alias("/health 200 on port " + port)
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(IOException.class) // not listening yet
        .untilAsserted(
            () -> {
              assertThat(child.isAlive()).as("child alive; log:\n%s", child.logTail(40)).isTrue();
              assertThat(
                      HTTP.send(
                              HttpRequest.newBuilder(
                                      URI.create("http://127.0.0.1:" + port + "/health"))
                                  .timeout(Duration.ofSeconds(5))
                                  .build(),
                              HttpResponse.BodyHandlers.ofString())
                          .statusCode())
                  .as("/health; log:\n%s", child.logTail(40))
                  .isEqualTo(200);
            });
  }

  private static String get(int port, String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static List<ConsumerRecord<String, String>> readOne(KafkaCluster kafka, String topic) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, "layout-check");
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (records.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
    }
    return records;
  }
}
