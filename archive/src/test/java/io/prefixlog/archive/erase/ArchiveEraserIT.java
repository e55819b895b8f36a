package io.prefixlog.archive.erase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.prefixlog.archive.ArchiveCatalog;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.embedded.S3ProxyServer;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.archive.read.ParquetText;
import io.prefixlog.embedded.postgres.ThrowawayPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The archive's share of an erasure against real parts: s3proxy for the bucket and a JDBC catalog,
 * SQLite as on the embedded path and PostgreSQL as in docker-compose. Rows are written as the sink
 * writes them (Parquet, zstd, several files and snapshots); sessions are erased; the rest must stay
 * exactly, KV batches keep their rows with the ids cleared, and no object in the bucket may hold a
 * marker only the erased rows held (Parquet values decoded) — a scan first shown to find them.
 */
@Timeout(180)
class ArchiveEraserIT {
  private static final String BUCKET = "erase-it";
  private static final long DAY = 86_400_000L;

  @TempDir static Path dir;
  @TempDir static Path pgDir; // its own root: the postgres user must reach it
  private static S3ProxyServer s3;
  private static ThrowawayPostgres postgres;

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
    if (postgres != null) {
      postgres.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgresql"})
  void shouldEraseSessionsFromEveryTableAndLeaveNoFileHoldingThem(String kind) throws Exception {
    // Given: four tables with sessions A (two chains), B, C, D (two chains of different age, and
    // two requests capture sampling kept no body of, one before the cut and one after)
    ArchiveSettings settings = settings(kind);
    String prefix = kind + ".";
    List<ArchivedTopic> topics = topics(prefix);
    ArchiveCatalog.prepare(settings, topics);
    try (JdbcCatalog catalog = catalog(settings)) {
      Table deltas = catalog.loadTable(TableIdentifier.parse(topics.get(0).table()));
      Table lookups = catalog.loadTable(TableIdentifier.parse(topics.get(1).table()));
      Table kv = catalog.loadTable(TableIdentifier.parse(topics.get(2).table()));
      Table requests = catalog.loadTable(TableIdentifier.parse(topics.get(3).table()));
      // Two appends per table: the rows of a session spread over files and snapshots.
      append(
          deltas,
          List.of(
              delta("A", "a1", 1, 100),
              delta("B", "b1", 1, 110),
              delta("C", "c1", 1, 120),
              delta("D", "d1", 1, 100)));
      append(
          deltas,
          List.of(
              delta("A", "a1", 2, 200),
              delta("A", "a2", 1, 210),
              delta("C", "c1", 2, 220),
              delta("D", "d2", 1, 500)));
      append(
          lookups,
          List.of(
              lookup("A", "A-a1-1"),
              lookup("B", "B-b1-1"),
              lookup("C", "C-c1-1"),
              lookup("D", "D-d1-1")));
      append(lookups, List.of(lookup("A", "A-a1-2"), lookup("C", "C-c1-2"), lookup("D", "D-d2-1")));
      append(kv, List.of(kvBatch(1, "A", "C"), kvBatch(2, "C")));
      append(kv, List.of(kvBatch(3, "B")));
      append(
          requests,
          List.of(
              request("A", "A-a1-1", 100, key("A") + "/a1/1"),
              request("B", "B-sampled", 110, null),
              request("C", "C-c1-1", 120, key("C") + "/c1/1")));
      append(
          requests,
          List.of(
              request("D", "D-d1-1", 100, key("D") + "/d1/1"),
              request("D", "D-sampled-early", 150, null),
              request("D", "D-sampled-late", 400, null)));
      List<String> markersOfErased =
          List.of(marker("A", "a1", 1), marker("A", "a2", 1), marker("B", "b1", 1));
      assertThat(bucketHolding(markersOfErased)).isNotEmpty(); // the scan sees them
      List<String> progress = new ArrayList<>();

      // When: A and B go (kv ids too); meanwhile the sink appends a turn of C
      List<TableErasure> results;
      try (ArchiveEraser eraser = ArchiveEraser.open(settings)) {
        results =
            eraser.erase(
                topics,
                new ErasureSelection(Set.of(key("A"), key("B")), Set.of(key("A"), key("B")), null),
                line -> {
                  progress.add(line);
                  if (line.startsWith(topics.get(0).table())
                      && line.contains("row-level deletes")) {
                    appendQuietly(catalog, topics.get(0).table(), delta("C", "c1", 3, 300));
                  }
                });
      }

      // Then: exactly the others' rows remain, with the concurrent append
      assertThat(rowsOf(catalog, topics.get(0).table(), "seq"))
          .containsExactlyInAnyOrder(
              key("C") + "/c1/1",
              key("C") + "/c1/2",
              key("C") + "/c1/3",
              key("D") + "/d1/1",
              key("D") + "/d2/1");
      assertThat(rowsOf(catalog, topics.get(1).table(), "request_id"))
          .containsExactlyInAnyOrder("C-c1-1", "C-c1-2", "D-d1-1", "D-d2-1");
      assertThat(kvSessionIds(catalog, topics.get(2).table()))
          .containsExactlyInAnyOrder(key("C"), key("C"), "(none)", "(none)");
      assertThat(rowsOf(catalog, topics.get(3).table(), "request_id"))
          .containsExactlyInAnyOrder("C-c1-1", "D-d1-1", "D-sampled-early", "D-sampled-late");
      assertThat(results).extracting(TableErasure::rowsDeleted).containsExactly(4L, 3L, 0L, 2L);
      assertThat(results).extracting(TableErasure::rowsScrubbed).containsExactly(0L, 0L, 2L, 0L);
      assertThat(results).allMatch(r -> r.snapshotsExpired() > 0 && r.filesRemoved() > 0);
      assertThat(progress).anyMatch(l -> l.contains("snapshots expired"));
      // and no object in the bucket holds an erased row's marker, while others' still show
      assertThat(bucketHolding(markersOfErased)).isEmpty();
      assertThat(bucketHolding(List.of(marker("C", "c1", 1)))).isNotEmpty();
      // and only the current snapshot is left
      deltas.refresh();
      assertThat(deltas.snapshots()).hasSize(1);

      // When: run again
      long snapshot = current(catalog, topics.get(0).table());
      try (ArchiveEraser eraser = ArchiveEraser.open(settings)) {
        results =
            eraser.erase(
                topics,
                new ErasureSelection(Set.of(key("A"), key("B")), Set.of(key("A"), key("B")), null),
                line -> {});
        // Then: nothing found, nothing committed
        assertThat(results).allMatch(TableErasure::untouched);
        assertThat(
                eraser.count(
                    topics, new ErasureSelection(Set.of(key("A")), Set.of(key("A")), null)))
            .isZero();
      }
      assertThat(current(catalog, topics.get(0).table())).isEqualTo(snapshot);

      // When: only D's chains that ended before 300 go
      try (ArchiveEraser eraser = ArchiveEraser.open(settings)) {
        eraser.erase(
            topics,
            new ErasureSelection(Set.of(key("D")), Set.of(), Instant.ofEpochMilli(300)),
            line -> {});
      }

      // Then: chain d1 (last turn at 100) and its lookup went; d2 (at 500) stayed
      assertThat(rowsOf(catalog, topics.get(0).table(), "seq"))
          .contains(key("D") + "/d2/1")
          .doesNotContain(key("D") + "/d1/1");
      assertThat(rowsOf(catalog, topics.get(1).table(), "request_id"))
          .contains("D-d2-1")
          .doesNotContain("D-d1-1");
      // and the metadata of d1's turn and of the sampled-out request before the cut went too
      assertThat(rowsOf(catalog, topics.get(3).table(), "request_id"))
          .containsExactlyInAnyOrder("C-c1-1", "D-sampled-late");
      assertThat(bucketHolding(List.of(marker("D", "d1", 1)))).isEmpty();
    }
  }

  private static ArchiveSettings settings(String kind) throws Exception {
    String uri;
    if (kind.equals("sqlite")) {
      uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
    } else {
      Optional<Path> bin = ThrowawayPostgres.binaries();
      if (!"true".equals(System.getenv("CI"))) {
        assumeTrue(bin.isPresent(), "PostgreSQL server binaries (scripts/install-test-deps.sh)");
      }
      assertThat(bin).as("PostgreSQL server (scripts/install-test-deps.sh)").isPresent();
      postgres = ThrowawayPostgres.start(bin.get(), pgDir, "iceberg", "iceberg");
      uri = "jdbc:postgresql://127.0.0.1:" + postgres.port() + "/iceberg?user=iceberg";
    }
    return new ArchiveSettings(
        s3.endpoint(),
        "us-east-1",
        "prefixlog",
        "prefixlog-dev-secret",
        true,
        "s3://" + BUCKET + "/" + kind,
        uri,
        "",
        "",
        Duration.ofSeconds(10));
  }

  private static List<ArchivedTopic> topics(String prefix) {
    String namespace = prefix.replace(".", "");
    List<ArchivedTopic> topics = new ArrayList<>();
    for (ArchivedTopic t : ArchivedTopic.all(prefix)) {
      topics.add(
          new ArchivedTopic(
              t.connector(),
              t.topic(),
              namespace + "." + t.table().substring(t.table().indexOf('.') + 1),
              t.controlTopic()));
    }
    return topics;
  }

  private static JdbcCatalog catalog(ArchiveSettings settings) {
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(ArchiveSettings.CATALOG_NAME, ArchiveReader.catalogProperties(settings));
    return catalog;
  }

  private static String key(String session) {
    return (session + "0000000000000000000000000000000").substring(0, 32).toLowerCase();
  }

  /** A 40-character string only this turn's row holds. */
  private static String marker(String session, String chain, long seq) {
    return ("MARKER-" + session + "-" + chain + "-" + seq + "-" + "x".repeat(40)).substring(0, 40);
  }

  private static Record delta(String session, String chain, long seq, long ts) {
    Record row = GenericRecord.create(ArchiveCatalog.schemaOf("session_deltas"));
    row.setField("schema_version", 3L);
    row.setField("session_key", key(session));
    row.setField("chain", chain);
    row.setField("seq", seq);
    row.setField("request_id", session + "-" + chain + "-" + seq);
    row.setField("ts", ts);
    row.setField("kind", "full");
    row.setField("body", "{\"content\":\"" + marker(session, chain, seq) + "\"}");
    row.setField(
        "kafka_ts", OffsetDateTime.of(2026, 11, 20, 0, 0, 0, 0, ZoneOffset.UTC).plusSeconds(ts));
    return row;
  }

  private static Record lookup(String session, String requestId) {
    Record row = GenericRecord.create(ArchiveCatalog.schemaOf("chunk_lookups"));
    row.setField("session_key", key(session));
    row.setField("request_id", requestId);
    row.setField("chunk_hashes", List.of("0x" + requestId.hashCode()));
    row.setField("kafka_ts", OffsetDateTime.of(2026, 11, 20, 0, 0, 0, 0, ZoneOffset.UTC));
    return row;
  }

  /** A request metadata row: of a kept turn, or sampled out ({@code turn} null). */
  private static Record request(String session, String requestId, long ts, String turn) {
    Record row = GenericRecord.create(ArchiveCatalog.schemaOf("requests_metadata"));
    row.setField("schema_version", 1L);
    row.setField("session_key", key(session));
    row.setField("request_id", requestId);
    row.setField("ts", ts);
    row.setField("turn", turn);
    row.setField("body_omitted", turn == null ? "sampled_out" : null);
    row.setField("kafka_ts", OffsetDateTime.of(2026, 11, 20, 0, 0, 0, 0, ZoneOffset.UTC));
    return row;
  }

  private static Record kvBatch(long seq, String... sessions) {
    org.apache.iceberg.Schema schema = ArchiveCatalog.schemaOf("kv_events");
    Types.StructType eventType =
        schema.findField("events").type().asListType().elementType().asStructType();
    List<Record> events = new ArrayList<>();
    for (String session : sessions) {
      Record event = GenericRecord.create(eventType);
      event.setField("type", "BlockStored");
      event.setField("block_hashes", List.of("00000000000000" + seq + "0"));
      event.setField("session_id", key(session));
      events.add(event);
    }
    Record plain = GenericRecord.create(eventType);
    plain.setField("type", "BlockRemoved");
    events.add(plain);
    Record row = GenericRecord.create(schema);
    row.setField("source", "vllm-0");
    row.setField("seq", seq);
    row.setField("events", events);
    row.setField(
        "kafka_ts",
        OffsetDateTime.of(2026, 11, 20, 0, 0, 0, 0, ZoneOffset.UTC)
            .plusSeconds(seq * DAY / 1000 / 10));
    return row;
  }

  /** Writes the rows as one data file per partition and commits them in one append. */
  private static void append(Table table, List<Record> rows) throws IOException {
    table.refresh();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 7, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    Map<PartitionKey, List<Record>> byPartition = new HashMap<>();
    InternalRecordWrapper internal = new InternalRecordWrapper(table.schema().asStruct());
    for (Record row : rows) {
      PartitionKey key = new PartitionKey(table.spec(), table.schema());
      key.partition(internal.wrap(row));
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
    }
    org.apache.iceberg.AppendFiles append = table.newAppend();
    for (Map.Entry<PartitionKey, List<Record>> part : byPartition.entrySet()) {
      DataWriter<Record> writer =
          writers.newDataWriter(
              files.newOutputFile(table.spec(), part.getKey()), table.spec(), part.getKey());
      try (writer) {
        part.getValue().forEach(writer::write);
      }
      DataFile file = writer.toDataFile();
      append.appendFile(file);
    }
    append.commit();
  }

  private static void appendQuietly(JdbcCatalog catalog, String table, Record row) {
    try {
      append(catalog.loadTable(TableIdentifier.parse(table)), List.of(row));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> rowsOf(JdbcCatalog catalog, String table, String field)
      throws IOException {
    Table t = catalog.loadTable(TableIdentifier.parse(table));
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> all = IcebergGenerics.read(t).build()) {
      for (Record r : all) {
        rows.add(
            field.equals("seq")
                ? r.getField("session_key") + "/" + r.getField("chain") + "/" + r.getField("seq")
                : String.valueOf(r.getField(field)));
      }
    }
    return rows;
  }

  @SuppressWarnings("unchecked")
  private static List<String> kvSessionIds(JdbcCatalog catalog, String table) throws IOException {
    Table t = catalog.loadTable(TableIdentifier.parse(table));
    List<String> ids = new ArrayList<>();
    try (CloseableIterable<Record> all = IcebergGenerics.read(t).build()) {
      for (Record r : all) {
        for (Record event : (List<Record>) r.getField("events")) {
          if ("BlockStored".equals(event.getField("type"))) {
            Object id = event.getField("session_id");
            ids.add(id == null ? "(none)" : id.toString());
          }
        }
      }
    }
    return ids;
  }

  private static long current(JdbcCatalog catalog, String table) {
    return catalog.loadTable(TableIdentifier.parse(table)).currentSnapshot().snapshotId();
  }

  /** Objects of the bucket holding any of the markers (Parquet values decoded). */
  private static Set<String> bucketHolding(List<String> markers) throws IOException {
    Set<String> holding = new TreeSet<>();
    try (Stream<Path> files = Files.walk(s3.bucketDir())) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        byte[] bytes =
            file.toString().endsWith(".parquet") ? ParquetText.of(file) : Files.readAllBytes(file);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        for (String marker : markers) {
          if (text.contains(marker)) {
            holding.add(file.getFileName().toString());
          }
        }
      }
    }
    return holding;
  }
}
