package io.prefixlog.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Pins the archive tables' schemas. The expected strings were printed from the hand-written schemas
 * {@link ArchiveCatalog} declared before they were derived from the record contracts, so this test
 * proves the derivation changed nothing: tables already in users' catalogs were created with
 * exactly these columns, types, nesting and order (Iceberg reassigns the field ids on create; they
 * are pinned too, as the hand-written code numbered them).
 */
class ArchiveCatalogSchemaTest {
  /** {@code schemaOf("session_deltas").asStruct()} of the hand-written schema. */
  private static final String SESSION_DELTAS =
      "struct<1: schema_version: optional long, 2: session_key: optional string, "
          + "3: seq: optional long, 4: chain: optional string, 5: request_id: optional string, "
          + "6: ts: optional long, 7: model: optional string, "
          + "8: session_key_source: optional string, 9: client_addr: optional string, "
          + "10: user_agent: optional string, 13: headers: optional map<string, string>, "
          + "14: method: optional string, 15: path: optional string, "
          + "16: kind: optional string, 17: keyframe_reason: optional string, "
          + "18: body: optional string, 19: body_encoding: optional string, "
          + "20: base_seq: optional long, 21: base_sha256: optional string, "
          + "27: ops: optional list<struct<23: op: optional string, 24: from: optional long, "
          + "25: len: optional long, 26: text: optional string>>, "
          + "28: chain_depth: optional long, 29: body_len: optional long, "
          + "30: body_sha256: optional string, 31: prefix_len: optional long, "
          + "32: truncated: optional boolean, 33: prompt_tokens: optional long, "
          + "34: cached_tokens: optional long, 35: prefix_cache_hit_rate: optional double, "
          + "45: response: optional struct<36: status: optional long, "
          + "37: latency_ms: optional double, 38: ttfb_ms: optional double, "
          + "42: usage: optional struct<39: prompt_tokens: optional long, "
          + "40: completion_tokens: optional long, 41: cached_tokens: optional long>, "
          + "43: id: optional string, 44: error: optional string>, "
          + "46: kafka_ts: optional timestamptz>";

  /**
   * {@code schemaOf("chunk_lookups").asStruct()}: the hand-written schema's columns (ids 1 to 15),
   * then those of the version 2 record ({@code schema_version}, {@code prefix_chunks}, {@code
   * tail_hashes}), which {@link ArchiveCatalog#prepare} adds to a table created before them.
   */
  private static final String CHUNK_LOOKUPS =
      "struct<1: timestamp: optional double, 2: request_id: optional string, "
          + "3: model_name: optional string, 4: chunk_size: optional long, "
          + "5: seq_len: optional long, 7: chunk_hashes: optional list<string>, "
          + "8: session_key: optional string, 9: hash_algo: optional string, "
          + "10: chunk_unit: optional string, 11: chunked: optional string, "
          + "12: prompt_tokens: optional long, 13: cached_tokens: optional long, "
          + "14: body_omitted: optional string, 15: upstream: optional string, "
          + "16: schema_version: optional long, 17: prefix_chunks: optional long, "
          + "19: tail_hashes: optional list<string>, "
          + "20: kafka_ts: optional timestamptz>";

  /** {@code schemaOf("kv_events").asStruct()} of the hand-written schema. */
  private static final String KV_EVENTS =
      "struct<1: schema_version: optional long, 2: source: optional string, "
          + "3: endpoint: optional string, 4: data_parallel_rank: optional long, "
          + "5: topic: optional string, 6: seq: optional long, 7: ts: optional long, "
          + "8: engine_ts: optional double, 9: marker: optional string, "
          + "10: missing_from: optional long, 11: missing_to: optional long, "
          + "27: events: optional list<struct<13: type: optional string, "
          + "15: block_hashes: optional list<string>, 16: parent_block_hash: optional string, "
          + "17: token_count: optional long, 18: block_size: optional long, "
          + "19: lora_id: optional long, 20: lora_name: optional string, "
          + "21: medium: optional string, 22: group_idx: optional long, "
          + "23: kv_cache_spec_kind: optional string, "
          + "24: kv_cache_spec_sliding_window: optional long, 25: locality: optional string, "
          + "26: session_id: optional string>>, 28: kafka_ts: optional timestamptz>";

  /**
   * {@code schemaOf("requests_metadata").asStruct()}: the table issue 19 added, derived from {@link
   * io.prefixlog.schemas.request.RequestMetadata} from the start. Pinned so that a change to the
   * record is a deliberate change of the table: version 2 added {@code client_request_id} last, and
   * version 3 {@code tenant} after it, so that the earlier columns keep their ids ({@code
   * PrepareCatalog} adds them to an existing table).
   */
  private static final String REQUESTS_METADATA =
      "struct<1: schema_version: optional long, 2: request_id: optional string, "
          + "3: ts: optional long, 4: session_key: optional string, "
          + "5: session_key_source: optional string, 6: method: optional string, "
          + "7: path: optional string, 8: model: optional string, 9: body_len: optional long, "
          + "10: body_sha256: optional string, 11: truncated: optional boolean, "
          + "12: turn: optional string, 13: body_omitted: optional string, "
          + "23: response: optional struct<14: status: optional long, "
          + "15: latency_ms: optional double, 16: ttfb_ms: optional double, "
          + "20: usage: optional struct<17: prompt_tokens: optional long, "
          + "18: completion_tokens: optional long, 19: cached_tokens: optional long>, "
          + "21: id: optional string, 22: error: optional string>, "
          + "24: client_request_id: optional string, 25: tenant: optional string, "
          + "26: kafka_ts: optional timestamptz>";

  @Test
  void shouldKeepTheSessionDeltasColumnsOfTheHandWrittenSchema() {
    // Given
    String table = "session_deltas";

    // When
    String schema = ArchiveCatalog.schemaOf(table).asStruct().toString();

    // Then
    assertThat(schema).isEqualTo(SESSION_DELTAS);
  }

  @Test
  void shouldKeepTheChunkLookupsColumnsOfTheHandWrittenSchema() {
    // Given
    String table = "chunk_lookups";

    // When
    String schema = ArchiveCatalog.schemaOf(table).asStruct().toString();

    // Then
    assertThat(schema).isEqualTo(CHUNK_LOOKUPS);
  }

  @Test
  void shouldKeepTheKvEventsColumnsOfTheHandWrittenSchema() {
    // Given
    String table = "kv_events";

    // When
    String schema = ArchiveCatalog.schemaOf(table).asStruct().toString();

    // Then
    assertThat(schema).isEqualTo(KV_EVENTS);
  }

  @Test
  void shouldKeepTheRequestsMetadataColumnsOfTheRequestMetadataRecord() {
    // Given
    String table = "requests_metadata";

    // When
    String schema = ArchiveCatalog.schemaOf(table).asStruct().toString();

    // Then
    assertThat(schema).isEqualTo(REQUESTS_METADATA);
  }

  @Test
  void shouldRejectATableThatIsNotArchived() {
    // Given
    String table = "dead_letters";

    // When / Then
    assertThatThrownBy(() -> ArchiveCatalog.schemaOf(table))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no archive table named dead_letters");
  }
}
