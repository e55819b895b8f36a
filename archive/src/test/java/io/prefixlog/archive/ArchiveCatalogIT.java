package io.prefixlog.archive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import io.prefixlog.archive.embedded.S3ProxyServer;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ArchiveCatalog#prepare} on a catalog that already holds the chunk lookups table as version
 * 1 records made it (s3proxy, a SQLite JDBC catalog): the table gains the version 2 columns, its
 * version 1 rows still read back as they were written, and version 2 rows, an empty {@code
 * tail_hashes} included, read back whole.
 */
@Timeout(120)
class ArchiveCatalogIT {
  private static final String BUCKET = "catalog-it";
  private static final JsonSerde<ChunkLookupRecord> SERDE = JsonSerde.of(ChunkLookupRecord.class);
  private static final Set<String> V2_COLUMNS =
      Set.of("schema_version", "prefix_chunks", "tail_hashes");
  private static final String SESSION = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";

  @TempDir static Path dir;
  private static S3ProxyServer s3;

  @BeforeAll
  static void startS3() {
    s3 =
        S3ProxyServer.start(
            S3ProxyServer.Options.defaults(
                dir.resolve("s3"),
                Path.of("target/s3proxy/s3proxy.jar"),
                BUCKET,
                "prefixlog",
                "prefixlog-dev-secret"));
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void shouldAddTheVersion2ColumnsToAVersion1LookupsTableAndReadBothVersionsBack()
      throws Exception {
    // Given: the lookups table with the columns version 1 had, holding one version 1 row
    ArchiveSettings settings =
        new ArchiveSettings(
            s3.endpoint(),
            "us-east-1",
            "prefixlog",
            "prefixlog-dev-secret",
            true,
            "s3://" + BUCKET + "/warehouse",
            "jdbc:sqlite:" + dir.resolve("catalog.db"),
            "",
            "",
            Duration.ofSeconds(10));
    List<ArchivedTopic> topics = ArchivedTopic.all("prefixlog.");
    TableIdentifier id = TableIdentifier.parse(ArchivedTopic.NAMESPACE + ".chunk_lookups");
    Schema v1Schema =
        new Schema(
            ArchiveCatalog.schemaOf("chunk_lookups").columns().stream()
                .filter(c -> !V2_COLUMNS.contains(c.name()))
                .toList());
    ChunkLookupRecord v1 =
        new ChunkLookupRecord(
            1.749633401877E9,
            "req-1",
            "m",
            256,
            522L,
            List.of("0xc5d4a7a8e6a99c0b", "0xab0fc90c0e69d52f"),
            SESSION,
            "sha256_chain_64",
            "bytes",
            "chat_messages",
            160L,
            0L,
            null,
            null,
            null,
            null,
            null);
    ChunkLookupRecord shares =
        new ChunkLookupRecord(
            1.749633409112E9,
            "req-2",
            "m",
            256,
            780L,
            null,
            SESSION,
            "sha256_chain_64",
            "bytes",
            "chat_messages",
            null,
            null,
            null,
            null,
            ChunkLookupRecord.SCHEMA_VERSION_V2,
            2,
            List.of("0x0f3c9b5e2d7a6184"));
    ChunkLookupRecord addsNoChunk =
        new ChunkLookupRecord(
            1.749633415008E9,
            "req-3",
            "m",
            256,
            800L,
            null,
            SESSION,
            "sha256_chain_64",
            "bytes",
            "chat_messages",
            null,
            null,
            null,
            null,
            ChunkLookupRecord.SCHEMA_VERSION_V2,
            3,
            List.of());
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize(ArchiveSettings.CATALOG_NAME, ArchiveReader.catalogProperties(settings));
      catalog.createNamespace(Namespace.of(ArchivedTopic.NAMESPACE));
      Table table =
          catalog
              .buildTable(id, v1Schema)
              .withPartitionSpec(
                  PartitionSpec.builderFor(v1Schema).day(ArchivedTopic.KAFKA_TS).build())
              .withProperties(ArchiveCatalog.TABLE_PROPERTIES)
              .create();
      append(table, row(table.schema(), v1));

      // When
      ArchiveCatalog.Prepared first = ArchiveCatalog.prepare(settings, topics);
      ArchiveCatalog.Prepared again = ArchiveCatalog.prepare(settings, topics);
      table.refresh();
      append(table, row(table.schema(), shares), row(table.schema(), addsNoChunk));

      // Then: the three other tables created, this one evolved once
      assertThat(first.created())
          .containsExactly(
              "prefixlog.session_deltas", "prefixlog.kv_events", "prefixlog.requests_metadata");
      assertThat(first.columnsAdded())
          .isEqualTo(
              Map.of(
                  "prefixlog.chunk_lookups",
                  List.of("schema_version", "prefix_chunks", "tail_hashes")));
      assertThat(again.created()).isEmpty();
      assertThat(again.columnsAdded()).isEmpty();
    }
    List<ChunkLookupRecord> read = new ArrayList<>();
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      reader.read(id.toString(), json -> read.add(SERDE.fromBytes(json)));
    }
    assertThat(read).containsExactlyInAnyOrder(v1, shares, addsNoChunk);
  }

  /** A record as the sink writes it: one column per field, nulls where it has none. */
  private static Record row(Schema schema, ChunkLookupRecord record) {
    Record row = GenericRecord.create(schema);
    asMap(record).forEach(row::setField);
    row.setField("kafka_ts", OffsetDateTime.of(2026, 11, 20, 0, 0, 0, 0, ZoneOffset.UTC));
    return row;
  }

  /** The record's JSON fields, integers as long as the sink reads them. */
  private static Map<String, Object> asMap(ChunkLookupRecord record) {
    Map<String, Object> fields = new java.util.LinkedHashMap<>();
    Json.mapper()
        .convertValue(record, new TypeReference<Map<String, Object>>() {})
        .forEach((k, v) -> fields.put(k, v instanceof Integer i ? Long.valueOf(i) : v));
    return fields;
  }

  private static void append(Table table, Record... rows) throws IOException {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    InternalRecordWrapper internal = new InternalRecordWrapper(table.schema().asStruct());
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(internal.wrap(rows[0]));
    DataWriter<Record> writer =
        writers.newDataWriter(files.newOutputFile(table.spec(), key), table.spec(), key);
    try (writer) {
      for (Record row : rows) {
        writer.write(row);
      }
    }
    DataFile file = writer.toDataFile();
    AppendFiles append = table.newAppend();
    append.appendFile(file);
    append.commit();
  }
}
