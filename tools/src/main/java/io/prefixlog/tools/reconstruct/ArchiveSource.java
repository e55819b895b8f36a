package io.prefixlog.tools.reconstruct;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.cli.Progress;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.rebuild.TurnKey;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;

/**
 * Reads the archived delta table (Iceberg, through its JDBC catalog and S3) into the rebuilder:
 * each row becomes the JSON record the topic held, spooled like the topic's values, so a body can
 * be rebuilt without Kafka.
 */
final class ArchiveSource {
  private ArchiveSource() {}

  /** What was read. */
  record Stats(String table, long rows, long bytes, long snapshots) {}

  /**
   * Reads every row of the table's current snapshot.
   *
   * @throws TopicReader.ReadException when the catalog or the table cannot be opened
   * @throws IOException when a data file or the spool fails
   */
  static Stats read(
      ArchiveSettings settings, String table, Rebuilder rebuilder, Spool spool, Progress progress)
      throws TopicReader.ReadException, IOException {
    long[] counts = new long[2]; // rows, bytes
    ArchiveReader.TableInfo info;
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      info = reader.info(table).orElse(null);
      if (info == null) {
        throw new TopicReader.ReadException(
            "no table "
                + table
                + " in the catalog "
                + settings.catalogUri()
                + " (tables: "
                + reader.tables(table.substring(0, table.indexOf('.')))
                + "); is that the catalog the archive writes to?",
            null);
      }
      reader.read(
          table,
          json -> {
            counts[0]++;
            counts[1] += json.length;
            String location = table + " row " + counts[0];
            JsonNode node = Json.mapper().readTree(json);
            String session = node.path("session_key").asText("");
            long seq = node.path("seq").asLong(0);
            // Version 2 rows have no chain (null in the evolved table): their chain is "".
            String chain = node.path("chain").asText("");
            if (session.isEmpty() || seq < 1 || chain.indexOf('/') >= 0) {
              rebuilder.addUnreadable(location, "row without session_key and seq");
            } else {
              long offset = spool.append(json);
              rebuilder.add(
                  new TurnKey(session, chain, seq), spool.jsonAt(offset, json.length), location);
            }
            progress.advance(1);
          });
    } catch (RuntimeException e) {
      // Catalog, S3 and Parquet failures surface as runtime exceptions from Iceberg.
      throw new TopicReader.ReadException(
          "cannot read " + table + " from the archive (" + settings + "): " + e, e);
    }
    spool.finishWriting();
    return new Stats(table, counts[0], counts[1], info.snapshots());
  }
}
