package io.prefixlog.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConnectTemplatesTest {
  private static final ArchiveSettings SETTINGS =
      new ArchiveSettings(
          "http://127.0.0.1:9000",
          "us-east-1",
          "key",
          "se\\cret",
          true,
          "s3://prefixlog/warehouse",
          "jdbc:sqlite:/tmp/catalog.db",
          "",
          "",
          Duration.ofSeconds(5));

  @Test
  void shouldRenderOneSinkConnectorPerArchivedTopic() throws IOException {
    // Given
    ArchivedTopic deltas = ArchivedTopic.deltas("p.");

    // When
    Properties p = new Properties();
    p.load(new StringReader(ConnectTemplates.sink(deltas, SETTINGS, "127.0.0.1:1234", 1)));

    // Then
    assertThat(p.getProperty("name")).isEqualTo("prefixlog-archive-deltas");
    assertThat(p.getProperty("topics")).isEqualTo("p.session.deltas");
    assertThat(p.getProperty("iceberg.tables")).isEqualTo("prefixlog.session_deltas");
    assertThat(p.getProperty("iceberg.control.topic")).isEqualTo("p.archive.control.deltas");
    assertThat(p.getProperty("iceberg.control.commit.interval-ms")).isEqualTo("5000");
    assertThat(p.getProperty("iceberg.kafka.bootstrap.servers")).isEqualTo("127.0.0.1:1234");
    assertThat(p.getProperty("iceberg.catalog.uri")).isEqualTo("jdbc:sqlite:/tmp/catalog.db");
    assertThat(p.getProperty("iceberg.catalog.s3.endpoint")).isEqualTo("http://127.0.0.1:9000");
    assertThat(p.getProperty("iceberg.catalog.s3.secret-access-key")).isEqualTo("se\\cret");
    assertThat(p.getProperty("iceberg.catalog.s3.path-style-access")).isEqualTo("true");
    assertThat(p.getProperty("iceberg.tables.default-partition-by")).isEqualTo("day(kafka_ts)");
    assertThat(p.getProperty("iceberg.tables.auto-create-props.write.parquet.compression-codec"))
        .isEqualTo("zstd");
    assertThat(p.getProperty("value.converter.schemas.enable")).isEqualTo("false");
    assertThat(p.getProperty("transforms"))
        .isEqualTo("dropTombstones,dropControl,kafkaTs,kafkaTsType");
    assertThat(p.getProperty("transforms.kafkaTsType.target.type")).isEqualTo("Timestamp");
    assertThat(p.stringPropertyNames()).noneMatch(k -> p.getProperty(k).contains("${"));
  }

  @Test
  void shouldNameEveryPlaceholderWithoutAValue() {
    assertThatThrownBy(() -> ConnectTemplates.render(ConnectTemplates.WORKER, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "template worker-standalone.properties needs values for BOOTSTRAP_SERVERS,"
                + " MAX_RECORD_BYTES, OFFSETS_FILE, PLUGIN_PATH, REST_HOST, REST_PORT");
  }

  @Test
  void shouldListThePlaceholdersADeploymentMustProvide() {
    assertThat(ConnectTemplates.placeholders(ConnectTemplates.read(ConnectTemplates.SINK)))
        .containsExactly(
            "CONNECTOR_NAME",
            "TASKS_MAX",
            "TOPIC",
            "TABLE",
            "CONTROL_TOPIC",
            "COMMIT_INTERVAL_MS",
            "BOOTSTRAP_SERVERS",
            "CATALOG_URI",
            "CATALOG_USER",
            "CATALOG_PASSWORD",
            "WAREHOUSE",
            "S3_ENDPOINT",
            "S3_PATH_STYLE_ACCESS",
            "S3_ACCESS_KEY",
            "S3_SECRET_KEY",
            "S3_REGION");
  }

  @Test
  void shouldArchiveDeltasLookupsKvEventsAndRequestMetadata() {
    assertThat(ArchivedTopic.all("prefixlog.").stream().map(ArchivedTopic::table).toList())
        .isEqualTo(
            List.of(
                "prefixlog.session_deltas",
                "prefixlog.chunk_lookups",
                "prefixlog.kv_events",
                "prefixlog.requests_metadata"));
  }

  @Test
  void shouldNeverShowTheSecretKey() {
    assertThat(SETTINGS.toString()).doesNotContain("cret").contains("s3://prefixlog/warehouse");
    assertThat(SETTINGS.bucket()).isEqualTo("prefixlog");
  }
}
