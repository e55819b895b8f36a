package io.prefixlog.tools.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchiveCatalog;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.embedded.S3ProxyServer;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prefixlog archive maintain} as an operator runs it, against s3proxy and the SQLite catalog
 * of the embedded path: the four tables, five small commits to the deltas table, one run.
 */
class ArchiveMaintainCommandIT {
  @TempDir Path dir;

  @Test
  void shouldMaintainEveryArchiveTableAndReportEach() throws Exception {
    try (S3ProxyServer s3 =
        S3ProxyServer.start(
            S3ProxyServer.Options.defaults(
                dir.resolve("s3"),
                Path.of("../archive/target/s3proxy/s3proxy.jar"),
                ArchiveEnv.DEFAULT_BUCKET,
                ArchiveEnv.DEFAULT_ACCESS_KEY,
                ArchiveEnv.DEFAULT_SECRET_KEY))) {
      // Given: the embedded path's tables, five commits of one day to the deltas table
      Path catalogFile = dir.resolve("catalog.db");
      ArchiveSettings settings =
          ArchiveEnv.settings(
              Map.of(),
              s3.endpoint(),
              ArchiveEnv.warehouse(Map.of()),
              ArchiveEnv.sqliteUri(catalogFile));
      ArchiveCatalog.prepare(settings, ArchivedTopic.all("prefixlog."));
      try (JdbcCatalog catalog = new JdbcCatalog()) {
        catalog.initialize(ArchiveSettings.CATALOG_NAME, ArchiveReader.catalogProperties(settings));
        Table deltas = catalog.loadTable(TableIdentifier.parse("prefixlog.session_deltas"));
        for (int commit = 0; commit < 5; commit++) {
          append(deltas, commit);
        }
      }
      CapturedTerminal console = new CapturedTerminal();

      // When
      int code =
          new ArchiveCommand(console.terminal())
              .run(
                  new String[] {
                    "maintain",
                    "--s3-endpoint",
                    s3.endpoint(),
                    "--catalog-uri",
                    ArchiveEnv.sqliteUri(catalogFile)
                  });

      // Then: one summary per table; the deltas' five files became one; the others had nothing
      String stdout = console.out();
      assertThat(code).as(console.err()).isEqualTo(Command.OK);
      assertThat(stdout.lines())
          .hasSize(4)
          .anyMatch(
              l ->
                  l.startsWith("prefixlog.session_deltas: ")
                      && l.contains(
                          "5 small files in 1 partitions compacted into 1 sorted files (5 rows)"))
          .anyMatch(l -> l.startsWith("prefixlog.kv_events: 0 snapshots expired"));
      assertThat(console.err())
          .contains("prefixlog.session_deltas: compact: ")
          .contains("run 1 done in")
          .contains(": 4 of 4 tables maintained");
      try (ArchiveReader reader = ArchiveReader.open(settings)) {
        assertThat(reader.read("prefixlog.session_deltas", row -> {})).isEqualTo(5);
        assertThat(reader.info("prefixlog.session_deltas").orElseThrow().dataFiles()).isEqualTo(1);
      }
    }
  }

  private static void append(Table table, int commit) throws Exception {
    Record row = GenericRecord.create(ArchiveCatalog.schemaOf("session_deltas"));
    row.setField("session_key", "0123456789abcdef0123456789abcde" + commit);
    row.setField("chain", "c1");
    row.setField("seq", 1L);
    row.setField("kind", "full");
    row.setField("body", "{}");
    row.setField("kafka_ts", OffsetDateTime.of(2026, 11, 20, 0, commit, 0, 0, ZoneOffset.UTC));
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    partition.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .build()
            .newDataWriter(files.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (writer) {
      writer.write(row);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }
}
