package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.ConnectTemplates;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/connect/register-connectors.sh (compose's connect-init) against a real HTTP server that
 * answers like Kafka Connect's REST API: it waits for the Iceberg plugin, then renders the archive
 * module's connector template once per archived topic and PUTs it as JSON — exactly the
 * configuration the archive's own {@link ConnectTemplates#sink} gives the embedded path (ArchiveIT)
 * for the same topics and settings, with the PostgreSQL catalog — and refuses to send anything when
 * a placeholder has no value.
 */
class RegisterConnectorsScriptTest {
  private static final Path ROOT = Repository.root();
  private static final Path SCRIPT = ROOT.resolve("deploy/connect/register-connectors.sh");

  /** The archive module's connector template, the file compose mounts into connect-init. */
  private static final Path ARCHIVE_TEMPLATE =
      ROOT.resolve("archive/src/main/connect/iceberg-sink.properties");

  private static final String SECRET = "s3cr&t|with\\odd\"quote";

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private HttpServer server;
  private final AtomicInteger pluginRequests = new AtomicInteger();
  private final List<String> puts = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, String> bodies = Collections.synchronizedMap(new HashMap<>());

  @BeforeEach
  void startConnectLikeServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/connector-plugins",
        exchange -> {
          // The worker is "starting" for the first two polls: no plugins yet.
          String body =
              pluginRequests.incrementAndGet() <= 2
                  ? "[]"
                  : "[{\"class\":\"org.apache.iceberg.connect.IcebergSinkConnector\","
                      + "\"type\":\"sink\",\"version\":\"1.12.0\"}]";
          respond(exchange, 200, body);
        });
    server.createContext(
        "/connectors/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          puts.add(exchange.getRequestMethod() + " " + path);
          bodies.put(path, body);
          respond(exchange, 201, "{}");
        });
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  @Test
  void shouldWaitForTheIcebergPluginAndPutEveryConnectorWithItsSettings() throws Exception {
    // Given
    Map<String, String> env = settings();

    // When
    Result result = runScript(env);

    // Then
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(pluginRequests.get()).isGreaterThanOrEqualTo(3);
    assertThat(puts)
        .containsExactlyInAnyOrder(
            "PUT /connectors/prefixlog-archive-deltas/config",
            "PUT /connectors/prefixlog-archive-lookups/config",
            "PUT /connectors/prefixlog-archive-kv-events/config",
            "PUT /connectors/prefixlog-archive-requests/config");
    JsonNode deltas = JSON.readTree(bodies.get("/connectors/prefixlog-archive-deltas/config"));
    assertThat(deltas.get("name").asText()).isEqualTo("prefixlog-archive-deltas");
    assertThat(deltas.get("topics").asText()).isEqualTo("test.session.deltas");
    assertThat(deltas.get("iceberg.control.topic").asText())
        .isEqualTo("test.archive.control.deltas");
    assertThat(deltas.get("transforms.kafkaTs.type").asText())
        .isEqualTo("org.apache.kafka.connect.transforms.InsertField$Value");
    JsonNode kv = JSON.readTree(bodies.get("/connectors/prefixlog-archive-kv-events/config"));
    assertThat(kv.get("topics").asText()).isEqualTo("test.kv.events");
    assertThat(kv.get("iceberg.tables").asText()).isEqualTo("archive_ns.kv_events");
    assertThat(deltas.get("iceberg.tables").asText()).isEqualTo("archive_ns.session_deltas");
    // Tombstones (session erasure on the compacted deltas topic) are filtered before the sink.
    assertThat(deltas.get("transforms").asText())
        .isEqualTo("dropTombstones,dropControl,kafkaTs,kafkaTsType");
    assertThat(deltas.get("transforms.dropTombstones.type").asText())
        .isEqualTo("org.apache.kafka.connect.transforms.Filter");
    assertThat(deltas.get("transforms.dropTombstones.predicate").asText()).isEqualTo("isTombstone");
    assertThat(deltas.get("predicates.isTombstone.type").asText())
        .isEqualTo("org.apache.kafka.connect.transforms.predicates.RecordIsTombstone");
    assertThat(deltas.get("iceberg.catalog.uri").asText())
        .isEqualTo("jdbc:postgresql://postgres:5432/catalogdb");
    assertThat(deltas.get("iceberg.catalog.s3.secret-access-key").asText()).isEqualTo(SECRET);
    assertThat(deltas.get("iceberg.catalog.warehouse").asText())
        .isEqualTo("s3://bucket-x/warehouse");
    assertThat(deltas.get("iceberg.control.commit.interval-ms").asText()).isEqualTo("5000");
    assertThat(deltas.get("iceberg.catalog.s3.path-style-access").asText()).isEqualTo("true");
    for (String body : bodies.values()) {
      assertThat(body).doesNotContain("${");
      assertThat(JSON.readTree(body).get("connector.class").asText())
          .isEqualTo("org.apache.iceberg.connect.IcebergSinkConnector");
    }
    assertThat(result.output()).contains("4 connectors registered");
  }

  @Test
  void shouldRegisterWhatTheArchiveRendersForTheEmbeddedPathWithThePostgresCatalog()
      throws Exception {
    // Given: compose's namespace (the default), the one PrepareCatalog creates the tables in
    Map<String, String> env = settings();
    env.remove("ARCHIVE_NAMESPACE");
    ArchiveSettings archive =
        new ArchiveSettings(
            "http://minio:9000",
            "eu-west-1",
            "minio-user",
            SECRET,
            true,
            "s3://bucket-x/warehouse",
            "jdbc:postgresql://postgres:5432/catalogdb",
            "cat",
            "pw",
            Duration.ofMillis(5000));

    // When
    Result result = runScript(env);

    // Then
    assertThat(result.exitCode()).as(result.output()).isZero();
    // The template compose mounts is the one in the archive jar that ConnectTemplates renders.
    assertThat(Files.readString(ARCHIVE_TEMPLATE, StandardCharsets.UTF_8))
        .isEqualTo(ConnectTemplates.read(ConnectTemplates.SINK));
    List<ArchivedTopic> topics = ArchivedTopic.all("test.");
    assertThat(topics).hasSize(4);
    for (ArchivedTopic topic : topics) {
      Properties expected = new Properties();
      expected.load(new StringReader(ConnectTemplates.sink(topic, archive, "kafka:9092", 2)));
      Map<String, String> registered = new TreeMap<>();
      JSON.readTree(bodies.get("/connectors/" + topic.connector() + "/config"))
          .properties()
          .forEach(e -> registered.put(e.getKey(), e.getValue().asText()));
      Map<String, String> embedded = new TreeMap<>();
      expected.stringPropertyNames().forEach(k -> embedded.put(k, expected.getProperty(k)));
      assertThat(registered).as(topic.connector()).isEqualTo(embedded);
      assertThat(registered.get("iceberg.tables")).startsWith(ArchivedTopic.NAMESPACE + ".");
    }
  }

  @Test
  void shouldAddComposesSaslSettingsForTheSinksOwnKafkaClientsAsReferences() throws Exception {
    // Given: compose's overrides file after the template
    Map<String, String> env = settings();
    env.put(
        "CONNECTOR_OVERRIDES",
        ROOT.resolve("deploy/connect/iceberg-sink-sasl.properties").toString());

    // When
    Result result = runScript(env);

    // Then: every connector has them, the password as a reference the worker resolves
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(bodies).hasSize(4);
    for (String body : bodies.values()) {
      JsonNode config = JSON.readTree(body);
      assertThat(config.get("iceberg.kafka.security.protocol").asText())
          .isEqualTo("SASL_PLAINTEXT");
      assertThat(config.get("iceberg.kafka.sasl.mechanism").asText()).isEqualTo("PLAIN");
      assertThat(config.get("iceberg.kafka.sasl.jaas.config").asText())
          .isEqualTo(
              "org.apache.kafka.common.security.plain.PlainLoginModule required"
                  + " username=\"connect\" password=\"${env:KAFKA_CONNECT_PASSWORD}\";");
      assertThat(config.get("iceberg.kafka.bootstrap.servers").asText()).isEqualTo("kafka:9092");
    }
  }

  @Test
  void shouldRefuseOverridesThatAreNotThere() throws Exception {
    Map<String, String> env = settings();
    env.put("CONNECTOR_OVERRIDES", dir.resolve("absent.properties").toString());

    Result result = runScript(env);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output()).contains("no connector overrides at");
    assertThat(puts).isEmpty();
  }

  @Test
  void shouldRefuseToRegisterWithAnUnsetPlaceholder() throws Exception {
    // Given
    Map<String, String> env = settings();
    env.remove("CATALOG_PASSWORD");

    // When
    Result result = runScript(env);

    // Then
    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output()).contains("CATALOG_PASSWORD is not set");
    assertThat(puts).isEmpty();
  }

  private Map<String, String> settings() {
    Map<String, String> env = new HashMap<>();
    env.put("CONNECT_URL", "http://127.0.0.1:" + server.getAddress().getPort());
    env.put("CONNECTOR_TEMPLATE", ARCHIVE_TEMPLATE.toString());
    env.put("CONNECT_WAIT_SECONDS", "30");
    env.put("CONNECT_POLL_SECONDS", "1");
    env.put("TOPIC_PREFIX", "test.");
    env.put("ARCHIVE_NAMESPACE", "archive_ns");
    env.put("TASKS_MAX", "2");
    env.put("COMMIT_INTERVAL_MS", "5000");
    env.put("BOOTSTRAP_SERVERS", "kafka:9092");
    env.put("CATALOG_URI", "jdbc:postgresql://postgres:5432/catalogdb");
    env.put("CATALOG_USER", "cat");
    env.put("CATALOG_PASSWORD", "pw");
    env.put("WAREHOUSE", "s3://bucket-x/warehouse");
    env.put("S3_ENDPOINT", "http://minio:9000");
    env.put("S3_PATH_STYLE_ACCESS", "true");
    env.put("S3_ACCESS_KEY", "minio-user");
    env.put("S3_SECRET_KEY", SECRET);
    env.put("S3_REGION", "eu-west-1");
    return env;
  }

  private record Result(int exitCode, String output) {}

  private Result runScript(Map<String, String> env) throws Exception {
    Path log = dir.resolve("script.log");
    ProcessBuilder builder =
        new ProcessBuilder("sh", SCRIPT.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv("PATH"));
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("script finished").isTrue();
    return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
