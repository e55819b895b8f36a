package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.ConnectTemplates;
import io.prefixlog.archive.embedded.ConnectWorker;
import io.prefixlog.archive.embedded.S3ProxyServer;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.embedded.postgres.ThrowawayPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/connect/prepare-catalog.sh (compose's catalog-init) run as compose runs it — the plugin
 * directory {@code mvn -pl archive package} assembled as its class path, plus an SLF4J API jar from
 * a Connect worker's libs (the Kafka image's {@code /opt/kafka/libs}) — against a real PostgreSQL
 * (a throwaway cluster of Debian's server) and s3proxy standing in for MinIO: the four tables of
 * {@link ArchivedTopic#all} are created in the PostgreSQL catalog with their metadata in the
 * bucket, and a second run (every {@code docker compose up}) finds them and changes nothing.
 * Skipped without the PostgreSQL server binaries, except under {@code CI=true}
 * (scripts/install-test-deps.sh installs them).
 */
@ExtendWith(KafkaExtension.class)
class PrepareCatalogScriptIT {
  private static final Path ROOT = Repository.root();
  private static final Path SCRIPT = ROOT.resolve("deploy/connect/prepare-catalog.sh");

  /** The class path directory compose gives catalog-init, on the host. */
  private static final Path PLUGIN_LIB = pluginLib();

  private static final Path WORKER_LIB = ROOT.resolve("archive/target/connect-worker/lib");
  private static final Path S3PROXY_JAR = ROOT.resolve("archive/target/s3proxy/s3proxy.jar");
  private static final String BUCKET = "prefixlog-archive";

  /** Its own topics on the test JVM's shared broker. */
  private static final String TOPIC_PREFIX = "catalogit.";

  @TempDir Path pgDir;
  @TempDir Path s3Dir;
  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldCreateTheArchiveTablesInPostgresOnceFromThePluginDirectory(KafkaCluster kafka)
      throws Exception {
    // Given
    Optional<Path> postgresBin = ThrowawayPostgres.binaries();
    if (!"true".equals(System.getenv("CI"))) {
      Assumptions.assumeTrue(postgresBin.isPresent(), "PostgreSQL server binaries not installed");
    }
    assertThat(postgresBin).as("PostgreSQL server (scripts/install-test-deps.sh)").isPresent();
    assertThat(PLUGIN_LIB.resolve("prefixlog-archive-0.1.0-SNAPSHOT.jar"))
        .as("the plugin directory: mvn -pl archive -am package")
        .isRegularFile();
    assertThat(PLUGIN_LIB.resolve("postgresql-42.7.13.jar")).isRegularFile();
    assertThat(WORKER_LIB).isDirectoryContaining("glob:**/slf4j-api-*.jar");
    // The worker's own class path has no JDBC driver: the plugin's must serve the catalog.
    assertThat(WORKER_LIB).isDirectoryNotContaining("glob:**/postgresql-*.jar");
    try (ThrowawayPostgres postgres =
            ThrowawayPostgres.start(postgresBin.get(), pgDir, "iceberg", "iceberg");
        S3ProxyServer s3 =
            S3ProxyServer.start(
                S3ProxyServer.Options.defaults(
                    s3Dir, S3PROXY_JAR, BUCKET, "minio-user", "minio-secret"))) {
      Map<String, String> env = new HashMap<>();
      env.put("PLUGIN_LIB", PLUGIN_LIB.toString());
      env.put("SLF4J_DIR", WORKER_LIB.toString());
      env.put("TOPIC_PREFIX", TOPIC_PREFIX);
      env.put("CATALOG_URI", "jdbc:postgresql://127.0.0.1:" + postgres.port() + "/iceberg");
      env.put("CATALOG_USER", "iceberg");
      env.put("CATALOG_PASSWORD", "iceberg");
      env.put("WAREHOUSE", "s3://" + BUCKET + "/warehouse");
      env.put("S3_ENDPOINT", s3.endpoint());
      env.put("S3_PATH_STYLE_ACCESS", "true");
      env.put("S3_ACCESS_KEY", "minio-user");
      env.put("S3_SECRET_KEY", "minio-secret");
      env.put("S3_REGION", "us-east-1");

      // When
      Result first = runScript(env, "first");
      Result second = runScript(env, "second");

      // Then
      assertThat(first.exitCode()).as(first.output()).isZero();
      List<String> tables =
          ArchivedTopic.all(TOPIC_PREFIX).stream().map(ArchivedTopic::table).toList();
      assertThat(tables).hasSize(4);
      assertThat(first.output()).contains("created " + String.join(", ", tables));
      for (String table : tables) {
        Path metadata =
            s3.bucketDir().resolve("warehouse/" + table.replace('.', '/') + "/metadata");
        assertThat(metadata).as(table).isDirectoryContaining("glob:**/*.metadata.json");
      }
      assertThat(second.exitCode()).as(second.output()).isZero();
      assertThat(second.output()).contains("created nothing (all tables existed)");

      // When: the connectors run on the prepared PostgreSQL catalog, and a delta and a tombstone
      // (filtered by the template) arrive
      ArchiveSettings settings =
          new ArchiveSettings(
              s3.endpoint(),
              "us-east-1",
              "minio-user",
              "minio-secret",
              true,
              env.get("WAREHOUSE"),
              env.get("CATALOG_URI"),
              "iceberg",
              "iceberg",
              Duration.ofSeconds(1));
      List<ArchivedTopic> topics = ArchivedTopic.all(TOPIC_PREFIX);
      createTopics(kafka, topics);
      try (ConnectWorker connect =
          ConnectWorker.start(
              new ConnectWorker.Options(
                  dir.resolve("connect"),
                  WORKER_LIB,
                  PLUGIN_LIB.getParent().getParent(),
                  kafka.bootstrapServers(),
                  "127.0.0.1",
                  0,
                  384,
                  34_603_008L,
                  topics.stream()
                      .map(t -> ConnectTemplates.sink(t, settings, kafka.bootstrapServers(), 1))
                      .toList(),
                  topics.stream().map(ArchivedTopic::controlTopic).toList(),
                  Duration.ofSeconds(120)))) {
        produce(kafka, ArchivedTopic.deltas(TOPIC_PREFIX).topic());
        Path data = s3.bucketDir().resolve("warehouse/prefixlog/session_deltas/data");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String location = "";
        while (System.nanoTime() < deadline) {
          location =
              postgres.queryValue(
                  "iceberg",
                  "iceberg",
                  "select metadata_location from iceberg_tables"
                      + " where table_name = 'session_deltas'");
          if (parquetFiles(data) > 0 && !location.contains("/00000-")) {
            break;
          }
          Thread.sleep(500);
        }

        // Then
        assertThat(parquetFiles(data)).as("Parquet files under %s", data).isPositive();
        assertThat(location)
            .as("the deltas table's current metadata in the PostgreSQL catalog")
            .startsWith(env.get("WAREHOUSE") + "/prefixlog/session_deltas/metadata/")
            .doesNotContain("/00000-");
        assertThat(connect.states().values()).containsOnly("RUNNING");
      }
    }
  }

  private static void createTopics(KafkaCluster kafka, List<ArchivedTopic> topics)
      throws Exception {
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin
          .createTopics(topics.stream().map(t -> new NewTopic(t.topic(), 1, (short) 1)).toList())
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static void produce(KafkaCluster kafka, String topic) throws Exception {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  topic,
                  "pg-session",
                  "{\"schema_version\":1,\"session_key\":\"pg-session\",\"seq\":0,"
                      + "\"ts\":1763700000000,\"kind\":\"delta\",\"base_seq\":0,"
                      + "\"ops\":[{\"op\":\"copy\",\"from\":0,\"len\":2},"
                      + "{\"op\":\"insert\",\"text\":\"hi\"}],\"body_len\":4}"))
          .get(30, TimeUnit.SECONDS);
      producer.send(new ProducerRecord<>(topic, "erased-session", null)).get(30, TimeUnit.SECONDS);
    }
  }

  private static long parquetFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".parquet")).count();
    }
  }

  @Test
  void shouldStopBeforeJavaWhenASettingIsMissing() throws Exception {
    // Given
    Map<String, String> env = new HashMap<>();
    env.put("PLUGIN_LIB", PLUGIN_LIB.toString());
    env.put("SLF4J_DIR", WORKER_LIB.toString());
    env.put("CATALOG_URI", "jdbc:postgresql://127.0.0.1:1/iceberg");

    // When
    Result result = runScript(env, "missing");

    // Then
    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output()).contains("WAREHOUSE is not set").doesNotContain("PrepareCatalog");
  }

  private record Result(int exitCode, String output) {}

  private Result runScript(Map<String, String> env, String name) throws IOException {
    Path log = dir.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder("sh", SCRIPT.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv("PATH"));
    builder.environment().put("JAVA", javaExecutable());
    builder.environment().putAll(env);
    Process process = builder.start();
    try {
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("prepare-catalog.sh did not finish in 120 s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static Path pluginLib() {
    try {
      ComposeFile compose =
          ComposeFile.parse(
              Files.readString(ROOT.resolve(Repository.COMPOSE_FILE), StandardCharsets.UTF_8));
      String inContainer = compose.environment("catalog-init", "PLUGIN_LIB").orElseThrow();
      return compose.hostPath("catalog-init", inContainer, ROOT).orElseThrow();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
