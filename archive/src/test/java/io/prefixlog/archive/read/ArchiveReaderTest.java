package io.prefixlog.archive.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchiveCatalog;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class ArchiveReaderTest {
  @Test
  void shouldTurnADeltaRowBackIntoItsJsonRecord() throws Exception {
    // Given: a delta row as the sink writes it, nulls where the record had no field
    Schema schema = ArchiveCatalog.schemaOf("session_deltas");
    Record row = GenericRecord.create(schema);
    row.setField("schema_version", 2L);
    row.setField("session_key", "s1");
    row.setField("seq", 2L);
    row.setField("headers", Map.of("x-session-id", "c1"));
    row.setField("kind", "delta");
    row.setField("base_seq", 1L);
    Types.StructType op = schema.findField("ops").type().asListType().elementType().asStructType();
    Record copy = GenericRecord.create(op);
    copy.setField("op", "copy");
    copy.setField("from", 0L);
    copy.setField("len", 10L);
    Record insert = GenericRecord.create(op);
    insert.setField("op", "insert");
    insert.setField("text", "é\"");
    row.setField("ops", List.of(copy, insert));
    row.setField("prefix_cache_hit_rate", 0.5);
    row.setField("kafka_ts", OffsetDateTime.of(2026, 11, 21, 6, 0, 0, 0, ZoneOffset.UTC));

    // When
    String json = new String(ArchiveReader.toJson(row), StandardCharsets.UTF_8);

    // Then: null columns and the archive's own kafka_ts are left out
    assertThat(json)
        .isEqualTo(
            "{\"schema_version\":2,\"session_key\":\"s1\",\"seq\":2,"
                + "\"headers\":{\"x-session-id\":\"c1\"},\"kind\":\"delta\",\"base_seq\":1,"
                + "\"ops\":[{\"op\":\"copy\",\"from\":0,\"len\":10},"
                + "{\"op\":\"insert\",\"text\":\"é\\\"\"}],\"prefix_cache_hit_rate\":0.5}");
  }

  @Test
  void shouldPartitionEveryArchiveTableByTheKafkaTimestamp() {
    for (String table :
        List.of("session_deltas", "chunk_lookups", "kv_events", "requests_metadata")) {
      assertThat(ArchiveCatalog.schemaOf(table).findField("kafka_ts").type())
          .isEqualTo(Types.TimestampType.withZone());
    }
  }
}
