package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.embedded.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/connect/prepare-catalog.sh (compose's catalog-init) run as compose runs it — the plugin
 * directory {@code mvn -pl archive package} assembled as its class path, plus an SLF4J API jar from
 * a Connect worker's libs (the Kafka image's {@code /opt/kafka/libs}) — against a real PostgreSQL
 * (a throwaway cluster of Debian's server) and s3proxy standing in for MinIO: the three tables of
 * {@link ArchivedTopic#all} are created in the PostgreSQL catalog with their metadata in the
 * bucket, and a second run (every {@code docker compose up}) finds them and changes nothing.
 * Skipped without the PostgreSQL server binaries, except under {@code CI=true}
 * (scripts/install-test-deps.sh installs them).
 */
class PrepareCatalogScriptIT {
  private static final Path ROOT = Repository.root();
  private static final Path SCRIPT = ROOT.resolve("deploy/connect/prepare-catalog.sh");

  /** The class path directory compose gives catalog-init, on the host. */
  private static final Path PLUGIN_LIB = pluginLib();

  private static final Path WORKER_LIB = ROOT.resolve("archive/target/connect-worker/lib");
  private static final Path S3PROXY_JAR = ROOT.resolve("archive/target/s3proxy/s3proxy.jar");
  private static final String BUCKET = "prefixlog-archive";

  @TempDir Path pgDir;
  @TempDir Path s3Dir;
  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldCreateTheArchiveTablesInPostgresOnceFromThePluginDirectory() throws Exception {
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
    try (ThrowawayPostgres postgres =
            ThrowawayPostgres.start(postgresBin.get(), pgDir, "iceberg", "iceberg");
        S3ProxyServer s3 =
            S3ProxyServer.start(
                S3ProxyServer.Options.defaults(
                    s3Dir, S3PROXY_JAR, BUCKET, "minio-user", "minio-secret"))) {
      Map<String, String> env = new HashMap<>();
      env.put("PLUGIN_LIB", PLUGIN_LIB.toString());
      env.put("SLF4J_DIR", WORKER_LIB.toString());
      env.put("TOPIC_PREFIX", "prefixlog.");
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
          ArchivedTopic.all("prefixlog.").stream().map(ArchivedTopic::table).toList();
      assertThat(tables).hasSize(3);
      assertThat(first.output()).contains("created " + String.join(", ", tables));
      for (String table : tables) {
        Path metadata =
            s3.bucketDir().resolve("warehouse/" + table.replace('.', '/') + "/metadata");
        assertThat(metadata).as(table).isDirectoryContaining("glob:**/*.metadata.json");
      }
      assertThat(second.exitCode()).as(second.output()).isZero();
      assertThat(second.output()).contains("created nothing (all tables existed)");
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
