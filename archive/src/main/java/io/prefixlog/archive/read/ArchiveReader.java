package io.prefixlog.archive.read;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.prefixlog.archive.ArchiveSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * Reads archived tables through a JDBC catalog and S3FileIO, as any Iceberg engine would, and turns
 * each row back into the JSON record the topic held: struct columns become objects, lists arrays,
 * null columns are left out (the sink added a column for every field it ever saw), and columns the
 * sink added itself (such as {@code kafka_ts}) are skipped.
 */
public final class ArchiveReader implements AutoCloseable {
  /** Columns the connector configuration adds to every table; not part of the records. */
  public static final Set<String> ARCHIVE_COLUMNS = Set.of("kafka_ts");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JdbcCatalog catalog;

  private ArchiveReader(JdbcCatalog catalog) {
    this.catalog = catalog;
  }

  /** Opens the catalog; nothing is read until a table is. */
  public static ArchiveReader open(ArchiveSettings settings) {
    return new ArchiveReader(openCatalog(settings));
  }

  /** The archive's catalog, initialized for these settings; the caller closes it. */
  public static JdbcCatalog openCatalog(ArchiveSettings settings) {
    Objects.requireNonNull(settings, "settings");
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(ArchiveSettings.CATALOG_NAME, catalogProperties(settings));
    return catalog;
  }

  /** The Iceberg catalog properties for these settings (as the sink gets them, unprefixed). */
  public static Map<String, String> catalogProperties(ArchiveSettings settings) {
    Map<String, String> p = new HashMap<>();
    p.put("uri", settings.catalogUri());
    p.put("jdbc.user", settings.catalogUser());
    p.put("jdbc.password", settings.catalogPassword());
    p.put("jdbc.schema-version", "V1");
    p.put("warehouse", settings.warehouse());
    p.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    p.put("s3.endpoint", settings.s3Endpoint());
    p.put("s3.path-style-access", Boolean.toString(settings.pathStyleAccess()));
    p.put("s3.access-key-id", settings.s3AccessKey());
    p.put("s3.secret-access-key", settings.s3SecretKey());
    p.put("client.region", settings.s3Region());
    return p;
  }

  /** The tables of a namespace, {@code namespace.name}, sorted; empty if there is no namespace. */
  public List<String> tables(String namespace) {
    Namespace ns = Namespace.of(namespace);
    if (!catalog.namespaceExists(ns)) {
      return List.of();
    }
    return catalog.listTables(ns).stream().map(TableIdentifier::toString).sorted().toList();
  }

  /** What a table holds at its current snapshot. */
  public record TableInfo(
      String name,
      long snapshots,
      long rows,
      long dataFiles,
      long dataBytes,
      String schema,
      String partitionSpec,
      Map<String, String> properties) {}

  /** The table's current snapshot summary, or empty when the catalog has no such table (yet). */
  public Optional<TableInfo> info(String table) {
    Table t;
    try {
      t = catalog.loadTable(TableIdentifier.parse(table));
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
    Snapshot current = t.currentSnapshot();
    long snapshots = 0;
    for (Snapshot ignored : t.snapshots()) {
      snapshots++;
    }
    Map<String, String> summary = current == null ? Map.of() : current.summary();
    return Optional.of(
        new TableInfo(
            table,
            snapshots,
            Long.parseLong(summary.getOrDefault("total-records", "0")),
            Long.parseLong(summary.getOrDefault("total-data-files", "0")),
            Long.parseLong(summary.getOrDefault("total-files-size", "0")),
            t.schema().toString(),
            t.spec().toString(),
            Map.copyOf(t.properties())));
  }

  /** Receives each row as the UTF-8 JSON record it came from. */
  @FunctionalInterface
  public interface RowConsumer {
    void accept(byte[] json) throws IOException;
  }

  /**
   * Reads every row of the table's current snapshot.
   *
   * @return rows read
   * @throws NoSuchTableException when the catalog has no such table
   * @throws IOException from the consumer, or when a data file cannot be read
   */
  public long read(String table, RowConsumer consumer) throws IOException {
    return read(table, Expressions.alwaysTrue(), consumer);
  }

  /**
   * Reads the rows of the table's current snapshot whose string column {@code column} equals {@code
   * value} (one session's rows of a table keyed by {@code session_key}): Iceberg skips the data
   * files whose column statistics rule the value out, so a page of the UI does not read the whole
   * archive.
   *
   * @return rows read
   */
  public long readWhere(String table, String column, String value, RowConsumer consumer)
      throws IOException {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(value, "value");
    return read(table, Expressions.equal(column, value), consumer);
  }

  /**
   * How many data files a {@link #readWhere} with the same arguments opens: those of the current
   * snapshot whose column statistics do not rule the value out. What maintenance keeps bounded.
   */
  public int filesToRead(String table, String column, String value) throws IOException {
    Table t = catalog.loadTable(TableIdentifier.parse(table));
    if (t.currentSnapshot() == null) {
      return 0;
    }
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        t.newScan().filter(Expressions.equal(column, value)).planFiles()) {
      tasks.forEach(task -> files.add(task.file().location()));
    }
    return files.size();
  }

  private long read(String table, Expression filter, RowConsumer consumer) throws IOException {
    Table t = catalog.loadTable(TableIdentifier.parse(table));
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(t).where(filter).build()) {
      for (Record record : records) {
        consumer.accept(toJson(record));
        rows++;
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return rows;
  }

  /** One row as a JSON object (top-level archive columns left out). */
  static byte[] toJson(Record record) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      writeStruct(g, record, true);
    }
    return out.toByteArray();
  }

  private static void writeStruct(JsonGenerator g, Record record, boolean top) throws IOException {
    g.writeStartObject();
    for (Types.NestedField field : record.struct().fields()) {
      Object value = record.getField(field.name());
      if (value == null || (top && ARCHIVE_COLUMNS.contains(field.name()))) {
        continue;
      }
      g.writeFieldName(field.name());
      writeValue(g, value);
    }
    g.writeEndObject();
  }

  private static void writeValue(JsonGenerator g, Object value) throws IOException {
    if (value == null) {
      g.writeNull();
    } else if (value instanceof Record r) {
      writeStruct(g, r, false);
    } else if (value instanceof List<?> list) {
      g.writeStartArray();
      for (Object element : list) {
        writeValue(g, element);
      }
      g.writeEndArray();
    } else if (value instanceof Map<?, ?> map) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        g.writeFieldName(String.valueOf(e.getKey()));
        writeValue(g, e.getValue());
      }
      g.writeEndObject();
    } else if (value instanceof CharSequence s) {
      g.writeString(s.toString());
    } else if (value instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (value instanceof Integer i) {
      g.writeNumber(i);
    } else if (value instanceof Long l) {
      g.writeNumber(l);
    } else if (value instanceof Float f) {
      g.writeNumber(f);
    } else if (value instanceof Double d) {
      g.writeNumber(d);
    } else if (value instanceof BigDecimal d) {
      g.writeNumber(d);
    } else if (value instanceof OffsetDateTime t) {
      g.writeNumber(t.toInstant().toEpochMilli());
    } else if (value instanceof LocalDateTime t) {
      g.writeNumber(t.toInstant(ZoneOffset.UTC).toEpochMilli());
    } else if (value instanceof LocalDate d) {
      g.writeString(d.toString());
    } else if (value instanceof ByteBuffer b) {
      byte[] bytes = new byte[b.remaining()];
      b.duplicate().get(bytes);
      g.writeBinary(bytes);
    } else {
      g.writeString(value.toString());
    }
  }

  @Override
  public void close() throws IOException {
    catalog.close();
  }
}
