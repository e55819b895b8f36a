package io.prefixlog.archive;

import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RequestMetadata;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * Creates the archive's namespace and tables before the sink connectors start, with schemas taken
 * from the record contracts (docs/design.md#archive) rather than inferred by the sink from the
 * first record.
 *
 * <p>Two reasons. The sink infers a list's element type from the list's <em>first</em> element and
 * evolves nested structs only on later records, so the first delta's {@code ops} (a copy first,
 * inserts after) would lose the inserts' {@code text} and that turn would not rebuild; the same
 * holds for the event lists of KV batches. And each connector's task initializes the JDBC catalog
 * on its own: on a fresh database they race to create its tables ("duplicate column name:
 * iceberg_type"). Schema evolution stays on, so fields added to the contracts later become columns.
 *
 * <p>A table that exists already gains, here, every top-level column its contract has and it lacks,
 * as an optional column of the contract's type: rows written before read it as null. Left to the
 * sink, such a column would appear only when a record first holds the field, with the type that
 * record's value suggests; an empty list suggests none, so the version 2 lookups' {@code
 * tail_hashes} of a turn that adds no chunk would be lost until a later record brought the column.
 */
public final class ArchiveCatalog {
  /** Table properties of every archive table: Parquet, zstd, format version 2. */
  public static final Map<String, String> TABLE_PROPERTIES =
      Map.of(
          "format-version", "2",
          "write.format.default", "parquet",
          "write.parquet.compression-codec", "zstd");

  /**
   * The contract fields {@code kv_events} has no column for. {@code extra_keys} (a Jackson {@code
   * JsonNode} in {@link io.prefixlog.schemas.kv.KvEvent}, an array of untyped items in the JSON
   * Schema) holds the engine's extra keys as it sent them, one entry per block: null, or an array
   * mixing strings, numbers and nested arrays. An Iceberg column takes one type, so the tables were
   * never created with it; leaving it out keeps new tables identical to the existing ones.
   */
  static final Set<String> KV_EVENTS_OMITTED = Set.of("events.extra_keys");

  private ArchiveCatalog() {}

  /**
   * What {@link #prepare} did.
   *
   * @param created the tables created
   * @param columnsAdded per existing table that lacked columns of its contract, the columns added
   */
  public record Prepared(List<String> created, Map<String, List<String>> columnsAdded) {
    public Prepared {
      created = List.copyOf(created);
      columnsAdded = Map.copyOf(columnsAdded);
    }
  }

  /**
   * Creates the namespace and any of the topics' tables that do not exist, and adds to each table
   * that exists the top-level columns of its contract it lacks (optional; nothing else changes).
   */
  public static Prepared prepare(ArchiveSettings settings, List<ArchivedTopic> topics)
      throws IOException {
    Objects.requireNonNull(settings, "settings");
    List<String> created = new ArrayList<>();
    Map<String, List<String>> columnsAdded = new java.util.TreeMap<>();
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize(ArchiveSettings.CATALOG_NAME, ArchiveReader.catalogProperties(settings));
      for (ArchivedTopic topic : topics) {
        TableIdentifier id = TableIdentifier.parse(topic.table());
        if (!catalog.namespaceExists(id.namespace())) {
          try {
            catalog.createNamespace(id.namespace());
          } catch (AlreadyExistsException e) {
            // Created meanwhile by another process: what was wanted.
          }
        }
        if (catalog.tableExists(id)) {
          List<String> added = addMissingColumns(catalog.loadTable(id), schemaOf(id.name()));
          if (!added.isEmpty()) {
            columnsAdded.put(topic.table(), added);
          }
          continue;
        }
        Schema schema = schemaOf(id.name());
        try {
          catalog
              .buildTable(id, schema)
              .withPartitionSpec(
                  PartitionSpec.builderFor(schema).day(ArchivedTopic.KAFKA_TS).build())
              .withProperties(TABLE_PROPERTIES)
              .create();
          created.add(topic.table());
        } catch (AlreadyExistsException e) {
          // Created meanwhile by the sink or another process.
        }
      }
    }
    return new Prepared(created, columnsAdded);
  }

  /**
   * Adds the contract's top-level columns the table lacks, by name, in the contract's order; the
   * table's own columns stay as they are, whatever their type.
   *
   * @return the names of the columns added
   */
  static List<String> addMissingColumns(Table table, Schema contract) {
    for (int attempt = 1; ; attempt++) {
      List<String> added = new ArrayList<>();
      UpdateSchema update = table.updateSchema();
      for (Types.NestedField field : contract.columns()) {
        if (table.schema().findField(field.name()) == null) {
          update.addColumn(field.name(), field.type(), field.doc());
          added.add(field.name());
        }
      }
      if (added.isEmpty()) {
        return List.of();
      }
      try {
        update.commit();
        return List.copyOf(added);
      } catch (CommitFailedException e) {
        // Another process changed the table meanwhile (a second prepare, the sink evolving it):
        // look again at what it has now.
        if (attempt == 3) {
          throw e;
        }
        table.refresh();
      }
    }
  }

  /**
   * The schema of one archive table, by its name in the namespace: derived from the Java record of
   * the topic's contract ({@link ContractSchemas}), plus {@link ArchivedTopic#KAFKA_TS}.
   */
  public static Schema schemaOf(String table) {
    return switch (table) {
      case "session_deltas" -> ContractSchemas.tableOf(DeltaRecord.class, Set.of());
      case "chunk_lookups" -> ContractSchemas.tableOf(ChunkLookupRecord.class, Set.of());
      case "kv_events" -> ContractSchemas.tableOf(KvEventBatch.class, KV_EVENTS_OMITTED);
      case "requests_metadata" -> ContractSchemas.tableOf(RequestMetadata.class, Set.of());
      default -> throw new IllegalArgumentException("no archive table named " + table);
    };
  }
}
