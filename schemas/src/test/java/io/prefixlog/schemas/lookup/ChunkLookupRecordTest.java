package io.prefixlog.schemas.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.schemas.json.JsonSerde;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkLookupRecordTest {
  private static final JsonSerde<ChunkLookupRecord> SERDE = JsonSerde.of(ChunkLookupRecord.class);
  private static final List<String> FIRST = List.of("0x0000000000000001", "0x0000000000000002");

  @Test
  void shouldResolveAVersion2RecordFromItsPreviousTurnsList() {
    // Given: the second turn shares its first two hashes with the first
    ChunkLookupRecord second = record(2, List.of("0x0000000000000003", "0x0000000000000004"));

    // When
    List<String> whole = second.resolve(FIRST);

    // Then
    assertThat(whole)
        .containsExactly(
            "0x0000000000000001", "0x0000000000000002", "0x0000000000000003", "0x0000000000000004");
    assertThat(second.isWhole()).isFalse();
  }

  @Test
  void shouldWriteTheVersion1FormWithTheWholeListAndNoVersion2Fields() {
    // Given
    ChunkLookupRecord second = record(2, List.of("0x0000000000000003"));

    // When
    String json = new String(SERDE.toBytes(second.asVersion1(second.resolve(FIRST))));

    // Then
    assertThat(json)
        .isEqualTo(
            "{\"timestamp\":1.5,\"request_id\":\"r\",\"chunk_size\":4,\"seq_len\":13,"
                + "\"chunk_hashes\":[\"0x0000000000000001\",\"0x0000000000000002\","
                + "\"0x0000000000000003\"],\"session_key\":\"0123456789abcdef0123456789abcdef\","
                + "\"hash_algo\":\"sha256_chain_64\",\"chunk_unit\":\"bytes\","
                + "\"chunked\":\"chat_messages\"}");
  }

  @Test
  void shouldRefuseToResolveAgainstAPreviousListThatIsTooShort() {
    // Given
    ChunkLookupRecord second = record(3, List.of("0x0000000000000004"));

    // When / Then
    assertThatThrownBy(() -> second.resolve(FIRST))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shares 3 hashes")
        .hasMessageContaining("which has 2 hashes");
  }

  @Test
  void shouldReadAVersion1RecordsListAsItsWholeList() {
    // Given
    ChunkLookupRecord v1 = record(2, List.of("0x0000000000000003")).asVersion1(FIRST);

    // When / Then
    assertThat(v1.isV2()).isFalse();
    assertThat(v1.isWhole()).isTrue();
    assertThat(v1.resolve(null)).isEqualTo(FIRST);
  }

  private static ChunkLookupRecord record(int prefixChunks, List<String> tail) {
    return new ChunkLookupRecord(
        1.5,
        "r",
        null,
        4,
        13L,
        null,
        "0123456789abcdef0123456789abcdef",
        "sha256_chain_64",
        "bytes",
        "chat_messages",
        null,
        null,
        null,
        null,
        ChunkLookupRecord.SCHEMA_VERSION_V2,
        prefixChunks,
        tail);
  }
}
