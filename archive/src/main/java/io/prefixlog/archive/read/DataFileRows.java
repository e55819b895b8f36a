package io.prefixlog.archive.read;

import java.io.IOException;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * The rows of one Parquet data file of a table, in file order, read as they are stored: row-level
 * deletes that apply to the file are not applied. Erasure and maintenance read files one by one,
 * since they replace files rather than rows, and need each row's position in its file.
 */
public final class DataFileRows {
  private DataFileRows() {}

  /** Receives each row with its position in the file (0-based). */
  @FunctionalInterface
  public interface Consumer {
    void accept(long position, Record row) throws IOException;
  }

  /** Every row of {@code file} in the table's current schema. */
  public static void forEach(Table table, ContentFile<?> file, Consumer consumer)
      throws IOException {
    forEach(table, file, table.schema(), consumer);
  }

  /**
   * Every row of {@code file}, projected on {@code projection} (columns of the table's schema; a
   * column the file lacks reads as null).
   */
  public static void forEach(Table table, ContentFile<?> file, Schema projection, Consumer consumer)
      throws IOException {
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(projection)
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema))
            .build()) {
      long pos = 0;
      for (Record row : rows) {
        consumer.accept(pos++, row);
      }
    }
  }
}
