package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveEnv;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line of {@code reconstruct --archive}; reading the archive is {@code ArchiveIT}. */
class ReconstructArchiveOptionsTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    Terminal terminal =
        new Terminal(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            env,
            false);
    return new ReconstructCommand(terminal, () -> new ByteArrayInputStream(new byte[0])).run(args);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRefuseArchiveOptionsWithoutArchive() {
    assertThat(run(Map.of(), "--catalog-uri", "jdbc:sqlite:x.db")).isEqualTo(Command.USAGE);
    assertThat(err()).isEqualTo("prefixlog reconstruct: --catalog-uri needs --archive\n");
  }

  @Test
  void shouldRefuseTwoInputs() {
    assertThat(run(Map.of(), "--archive", "--file", "x.jsonl")).isEqualTo(Command.USAGE);
    assertThat(err())
        .isEqualTo(
            "prefixlog reconstruct: --archive and --file are two different inputs: pick one\n");
  }

  /** An existing (empty) SQLite file as --catalog-uri. */
  private String catalog() throws Exception {
    return "jdbc:sqlite:" + Files.createFile(dir.resolve("empty.db"));
  }

  @Test
  void shouldNameABadS3Endpoint() throws Exception {
    assertThat(
            run(
                Map.of(),
                "--archive",
                "--catalog-uri",
                catalog(),
                "--s3-endpoint",
                "127.0.0.1:9000"))
        .isEqualTo(Command.USAGE);
    assertThat(err())
        .isEqualTo(
            "prefixlog reconstruct: s3Endpoint must be an http:// or https:// URL but was"
                + " '127.0.0.1:9000'\n");
  }

  @Test
  void shouldNameABadCommitIntervalVariable() throws Exception {
    assertThat(
            run(
                Map.of("PREFIXLOG_ARCHIVE_COMMIT_INTERVAL", "soon"),
                "--archive",
                "--catalog-uri",
                catalog()))
        .isEqualTo(Command.USAGE);
    assertThat(err()).startsWith("prefixlog reconstruct: PREFIXLOG_ARCHIVE_COMMIT_INTERVAL=soon");
  }

  @Test
  void shouldRefuseTheDevelopmentKeysForAnObjectStoreBeyondLoopback() throws Exception {
    // Given: no PREFIXLOG_S3_* keys (the embedded s3proxy's development defaults) and a remote
    // endpoint
    String endpoint = "http://10.0.0.7:9000";

    // When
    int code = run(Map.of(), "--archive", "--catalog-uri", catalog(), "--s3-endpoint", endpoint);

    // Then: refused before anything is opened, the variable named, no key printed
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(err())
        .startsWith("prefixlog reconstruct: PREFIXLOG_S3_SECRET_KEY is unset")
        .contains("the S3 endpoint " + endpoint)
        .doesNotContain(ArchiveEnv.DEFAULT_SECRET_KEY);
  }

  @Test
  void shouldRefuseACatalogPasswordOnTheCommandLine() {
    // A command line shows in ps and in the catalog's own error messages
    assertThat(
            run(
                Map.of(),
                "--archive",
                "--catalog-uri",
                "jdbc:postgresql://127.0.0.1:5432/iceberg?user=iceberg&password=s3cr3t-value"))
        .isEqualTo(Command.USAGE);
    assertThat(err()).contains("PREFIXLOG_CATALOG_PASSWORD").doesNotContain("s3cr3t-value");
  }

  @Test
  void shouldTakeTheCatalogCredentialsFromTheEnvironment() {
    ArchiveSettings settings =
        ArchiveEnv.settings(
            Map.of("PREFIXLOG_CATALOG_USER", "iceberg", "PREFIXLOG_CATALOG_PASSWORD", "pw-1234"),
            "http://127.0.0.1:9000",
            "s3://b/w",
            "jdbc:postgresql://127.0.0.1:5432/iceberg");
    assertThat(settings.catalogUser()).isEqualTo("iceberg");
    assertThat(settings.catalogPassword()).isEqualTo("pw-1234");
    assertThat(settings.toString()).doesNotContain("pw-1234");
  }

  @Test
  void shouldHaveThePostgreSqlDriverOfComposesCatalogOnTheClassPath() throws Exception {
    // reconstruct --archive and erase --archive open docker-compose's PostgreSQL catalog
    assertThat(java.sql.DriverManager.getDriver("jdbc:postgresql://127.0.0.1:5432/iceberg"))
        .isNotNull();
  }

  @Test
  void shouldNotCreateACatalogThatIsNotThere() {
    Path missing = dir.resolve("nowhere.db");
    assertThat(run(Map.of(), "--archive", "--catalog-uri", "jdbc:sqlite:" + missing))
        .isEqualTo(Command.USAGE);
    assertThat(err())
        .isEqualTo(
            "prefixlog reconstruct: --catalog-uri jdbc:sqlite:"
                + missing
                + ": no such SQLite file (up --archive writes <data-dir>/archive/catalog.db)\n");
    assertThat(missing).doesNotExist();
  }

  @Test
  void shouldFailClearlyWhenTheCatalogHasNoTable() throws Exception {
    // Given: an empty SQLite catalog, no S3 server needed to find that out
    String catalog = "jdbc:sqlite:" + dir.resolve("catalog.db");
    ArchiveReader.open(ArchiveEnv.settings(Map.of(), "http://127.0.0.1:9", "s3://b/w", catalog))
        .close();

    // When
    int code =
        run(
            Map.of(),
            "--archive",
            "--s3-endpoint",
            "http://127.0.0.1:9",
            "--catalog-uri",
            catalog,
            "--table",
            "prefixlog.session_deltas");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(err())
        .isEqualTo(
            "prefixlog reconstruct: no table prefixlog.session_deltas in the catalog "
                + catalog
                + " (tables: []); is that the catalog the archive writes to?\n");
  }
}
