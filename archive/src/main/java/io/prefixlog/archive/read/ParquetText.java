package io.prefixlog.archive.read;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Every value of an Iceberg-written Parquet file (data or delete file), decoded, as one text: what
 * a scan for leftover bytes must read, since the pages are compressed (zstd) and raw file bytes
 * hide the strings they hold. The file's own schema (with its field ids) drives the read, so files
 * of any table and any schema version decode.
 */
public final class ParquetText {
  private ParquetText() {}

  /** The rows of the file, one per line, each value as Java prints it; UTF-8 bytes. */
  public static byte[] of(Path file) throws IOException {
    MessageType type;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      type = reader.getFooter().getFileMetaData().getSchema();
    }
    Schema schema = ParquetSchemaUtil.convert(type);
    StringBuilder text = new StringBuilder();
    try (CloseableIterable<Record> rows =
        Parquet.read(org.apache.iceberg.Files.localInput(file.toFile()))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      for (Record row : rows) {
        text.append(row).append('\n');
      }
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }
}
