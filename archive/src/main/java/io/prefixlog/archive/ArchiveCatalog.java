package io.prefixlog.archive;

import io.prefixlog.archive.read.ArchiveReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

/**
 * Creates the archive's namespace and tables before the sink connectors start, with schemas taken
 * from the record contracts (DESIGN §4) rather than inferred by the sink from the first record.
 *
 * <p>Two reasons. The sink infers a list's element type from the list's <em>first</em> element and
 * evolves nested structs only on later records, so the first delta's {@code ops} (a copy first,
 * inserts after) would lose the inserts' {@code text} and that turn would not rebuild; the same
 * holds for the event lists of KV batches. And each connector's task initializes the JDBC catalog
 * on its own: on a fresh database they race to create its tables ("duplicate column name:
 * iceberg_type"). Schema evolution stays on, so fields added to the contracts later become columns.
 */
public final class ArchiveCatalog {
  /** Table properties of every archive table: Parquet, zstd, format version 2. */
  public static final Map<String, String> TABLE_PROPERTIES =
      Map.of(
          "format-version", "2",
          "write.format.default", "parquet",
          "write.parquet.compression-codec", "zstd");

  private ArchiveCatalog() {}

  /**
   * Creates the namespace and any of the topics' tables that do not exist; existing tables are left
   * as they are.
   *
   * @return the tables created
   */
  public static List<String> prepare(ArchiveSettings settings, List<ArchivedTopic> topics)
      throws IOException {
    Objects.requireNonNull(settings, "settings");
    List<String> created = new ArrayList<>();
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
    return List.copyOf(created);
  }

  /** The schema of one archive table, by its name in the namespace. */
  public static Schema schemaOf(String table) {
    Fields f = new Fields();
    List<NestedField> fields =
        switch (table) {
          case "session_deltas" -> sessionDeltas(f);
          case "chunk_lookups" -> chunkLookups(f);
          case "kv_events" -> kvEvents(f);
          default -> throw new IllegalArgumentException("no archive table named " + table);
        };
    List<NestedField> all = new ArrayList<>(fields);
    all.add(f.field(ArchivedTopic.KAFKA_TS, Types.TimestampType.withZone()));
    return new Schema(all);
  }

  private static List<NestedField> sessionDeltas(Fields f) {
    return List.of(
        f.field("schema_version", Types.LongType.get()),
        f.field("session_key", Types.StringType.get()),
        f.field("seq", Types.LongType.get()),
        // Delta record version 3; null in rows of version 2 records. A table created before it
        // gains the column through the sink's schema evolution at the first version 3 record.
        f.field("chain", Types.StringType.get()),
        f.field("request_id", Types.StringType.get()),
        f.field("ts", Types.LongType.get()),
        f.field("model", Types.StringType.get()),
        f.field("session_key_source", Types.StringType.get()),
        f.field("client_addr", Types.StringType.get()),
        f.field("user_agent", Types.StringType.get()),
        f.field(
            "headers",
            Types.MapType.ofOptional(
                f.next(), f.next(), Types.StringType.get(), Types.StringType.get())),
        f.field("method", Types.StringType.get()),
        f.field("path", Types.StringType.get()),
        f.field("kind", Types.StringType.get()),
        f.field("keyframe_reason", Types.StringType.get()),
        f.field("body", Types.StringType.get()),
        f.field("body_encoding", Types.StringType.get()),
        f.field("base_seq", Types.LongType.get()),
        f.field("base_sha256", Types.StringType.get()),
        f.field(
            "ops",
            Types.ListType.ofOptional(
                f.next(),
                Types.StructType.of(
                    f.field("op", Types.StringType.get()),
                    f.field("from", Types.LongType.get()),
                    f.field("len", Types.LongType.get()),
                    f.field("text", Types.StringType.get())))),
        f.field("chain_depth", Types.LongType.get()),
        f.field("body_len", Types.LongType.get()),
        f.field("body_sha256", Types.StringType.get()),
        f.field("prefix_len", Types.LongType.get()),
        f.field("truncated", Types.BooleanType.get()),
        f.field("prompt_tokens", Types.LongType.get()),
        f.field("cached_tokens", Types.LongType.get()),
        f.field("prefix_cache_hit_rate", Types.DoubleType.get()),
        f.field("response", response(f)));
  }

  private static Type response(Fields f) {
    return Types.StructType.of(
        f.field("status", Types.LongType.get()),
        f.field("latency_ms", Types.DoubleType.get()),
        f.field("ttfb_ms", Types.DoubleType.get()),
        f.field(
            "usage",
            Types.StructType.of(
                f.field("prompt_tokens", Types.LongType.get()),
                f.field("completion_tokens", Types.LongType.get()),
                f.field("cached_tokens", Types.LongType.get()))),
        f.field("id", Types.StringType.get()),
        f.field("error", Types.StringType.get()));
  }

  private static List<NestedField> chunkLookups(Fields f) {
    return List.of(
        f.field("timestamp", Types.DoubleType.get()),
        f.field("request_id", Types.StringType.get()),
        f.field("model_name", Types.StringType.get()),
        f.field("chunk_size", Types.LongType.get()),
        f.field("seq_len", Types.LongType.get()),
        f.field("chunk_hashes", Types.ListType.ofOptional(f.next(), Types.StringType.get())),
        f.field("session_key", Types.StringType.get()),
        f.field("hash_algo", Types.StringType.get()),
        f.field("chunk_unit", Types.StringType.get()),
        f.field("chunked", Types.StringType.get()),
        f.field("prompt_tokens", Types.LongType.get()),
        f.field("cached_tokens", Types.LongType.get()));
  }

  private static List<NestedField> kvEvents(Fields f) {
    return List.of(
        f.field("schema_version", Types.LongType.get()),
        f.field("source", Types.StringType.get()),
        f.field("endpoint", Types.StringType.get()),
        f.field("data_parallel_rank", Types.LongType.get()),
        f.field("topic", Types.StringType.get()),
        f.field("seq", Types.LongType.get()),
        f.field("ts", Types.LongType.get()),
        f.field("engine_ts", Types.DoubleType.get()),
        f.field("marker", Types.StringType.get()),
        f.field("missing_from", Types.LongType.get()),
        f.field("missing_to", Types.LongType.get()),
        f.field(
            "events",
            Types.ListType.ofOptional(
                f.next(),
                Types.StructType.of(
                    f.field("type", Types.StringType.get()),
                    f.field(
                        "block_hashes",
                        Types.ListType.ofOptional(f.next(), Types.StringType.get())),
                    f.field("parent_block_hash", Types.StringType.get()),
                    f.field("token_count", Types.LongType.get()),
                    f.field("block_size", Types.LongType.get()),
                    f.field("lora_id", Types.LongType.get()),
                    f.field("lora_name", Types.StringType.get()),
                    f.field("medium", Types.StringType.get()),
                    f.field("group_idx", Types.LongType.get()),
                    f.field("kv_cache_spec_kind", Types.StringType.get()),
                    f.field("kv_cache_spec_sliding_window", Types.LongType.get()),
                    f.field("locality", Types.StringType.get()),
                    f.field("session_id", Types.StringType.get())))));
  }

  /** Hands out field ids; Iceberg reassigns them on create, they only need to be unique. */
  private static final class Fields {
    private final AtomicInteger id = new AtomicInteger();

    int next() {
      return id.incrementAndGet();
    }

    NestedField field(String name, Type type) {
      return NestedField.optional(next(), name, type);
    }
  }
}
