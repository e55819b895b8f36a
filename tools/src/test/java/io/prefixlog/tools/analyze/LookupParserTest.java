package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.analysis.mrc.LookupRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LookupParserTest {
  private static LookupParser.Parsed parse(String line) throws LookupParser.BadLineException {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    return LookupParser.parse(bytes, bytes.length);
  }

  private static Lookup lookup(String line) throws LookupParser.BadLineException {
    return parse(line).lookup().orElseThrow();
  }

  private static String bad(String line) {
    try {
      parse(line);
    } catch (LookupParser.BadLineException e) {
      return e.getMessage();
    }
    throw new AssertionError("parsed: " + line);
  }

  @Test
  void shouldReadAPrefixlogRecordWithItsUnitAndEngineFigures() throws Exception {
    // Given: the schema's golden example
    String line =
        "{\"timestamp\":1.749633401877E9,\"request_id\":\"req-20250611-091641-002\","
            + "\"model_name\":\"meta-llama/Llama-3.1-8B-Instruct\",\"chunk_size\":256,"
            + "\"seq_len\":522,\"chunk_hashes\":[\"0xc5d4a7a8e6a99c0b\",\"0xab0fc90c0e69d52f\"],"
            + "\"session_key\":\"3f9a0c5e71b2d48a6c0e9f1b2a7d3c58\",\"hash_algo\":\"sha256_64\","
            + "\"chunk_unit\":\"bytes\",\"chunked\":\"chat_messages\",\"prompt_tokens\":160,"
            + "\"cached_tokens\":64}";

    // When
    Lookup lookup = lookup(line);

    // Then
    assertThat(lookup)
        .isEqualTo(
            new Lookup(
                1.749633401877E9,
                "meta-llama/Llama-3.1-8B-Instruct",
                256,
                522,
                new long[] {0xc5d4a7a8e6a99c0bL, 0xab0fc90c0e69d52fL},
                Lookup.ChunkUnit.BYTES,
                false,
                160,
                64,
                0,
                "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58",
                false,
                ""));
    assertThat(lookup.timestampMs()).isEqualTo(1_749_633_401_877L);
  }

  @Test
  void shouldReadAnLmcacheLineAsTokensWithItsKvBytesPerChunk() throws Exception {
    // Given: hashes as Python's hex() writes them (no leading zeros), torch dtypes
    String line =
        "{\"timestamp\": 1763700000.25, \"request_id\": \"r\", \"model_name\": \"m\","
            + " \"chunk_size\": 256, \"seq_len\": 600, \"dtypes\": [\"torch.bfloat16\","
            + " \"float8_e4m3fn\"], \"shapes\": [[2, 32, 256, 8, 128], [32, 256]],"
            + " \"chunk_hashes\": [\"0x1f\", \"0xffffffffffffffff\"]}";

    // When
    Lookup lookup = lookup(line);

    // Then
    assertThat(lookup.unit()).isEqualTo(Lookup.ChunkUnit.TOKENS);
    assertThat(lookup.lmcache()).isTrue();
    assertThat(lookup.keys()).containsExactly(0x1fL, -1L);
    assertThat(lookup.kvBytesPerChunk()).isEqualTo(2L * 32 * 256 * 8 * 128 * 2 + 32 * 256);
    assertThat(lookup.promptTokens()).isEqualTo(LookupRequest.UNKNOWN);
    assertThat(lookup.cachedTokens()).isEqualTo(LookupRequest.UNKNOWN);
  }

  @Test
  void shouldLeaveTheKvBytesUnknownForADtypeItDoesNotKnow() throws Exception {
    assertThat(
            lookup(
                    "{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":4,\"chunk_hashes\":[\"0x1\"],"
                        + "\"dtypes\":[\"complex32\"],\"shapes\":[[4]]}")
                .kvBytesPerChunk())
        .isZero();
  }

  @Test
  void shouldTakeAnAbsentCachedCountAsZeroWhenThePromptIsKnown() throws Exception {
    Lookup lookup =
        lookup(
            "{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":4,\"chunk_hashes\":[\"0x1\"],"
                + "\"prompt_tokens\":9}");
    assertThat(lookup.promptTokens()).isEqualTo(9);
    assertThat(lookup.cachedTokens()).isZero();
  }

  @Test
  void shouldReadKcatEnvelopesAndTheirTombstones() throws Exception {
    // Given
    String value =
        "{\"timestamp\":2.5,\"chunk_size\":4,\"seq_len\":9,\"chunk_hashes\":[\"0xa\",\"0xb\"]}";
    String asString =
        "{\"topic\":\"prefixlog.chunk.lookups\",\"partition\":0,\"offset\":7,\"key\":\"r1\","
            + "\"payload\":\""
            + value.replace("\"", "\\\"")
            + "\"}";
    String asObject = "{\"key\":\"r2\",\"payload\":" + value + "}";
    String tombstone = "{\"key\":\"r3\",\"payload\":null}";

    // Then
    assertThat(parse(asString).key()).isEqualTo("r1");
    assertThat(parse(asString).lookup().orElseThrow().keys()).containsExactly(0xaL, 0xbL);
    assertThat(parse(asObject).key()).isEqualTo("r2");
    assertThat(parse(asObject).lookup()).isEqualTo(parse(asString).lookup());
    assertThat(parse(tombstone).tombstone()).isTrue();
    assertThat(parse(tombstone).lookup()).isEmpty();
    assertThat(parse(tombstone).key()).isEqualTo("r3");
    assertThat(parse("").lookup()).isEmpty();
  }

  @Test
  void shouldReadAVersion2RecordAsItListsItsHashesWithItsSharedCount() throws Exception {
    // Given: the v2 schema's golden example of a turn that shares two chunks
    String line =
        "{\"timestamp\":1.749633409112E9,\"request_id\":\"req-20250611-091649-002\","
            + "\"model_name\":\"meta-llama/Llama-3.1-8B-Instruct\",\"chunk_size\":256,"
            + "\"seq_len\":1304,\"session_key\":\"3f9a0c5e71b2d48a6c0e9f1b2a7d3c58\","
            + "\"hash_algo\":\"sha256_chain_64\",\"chunk_unit\":\"bytes\","
            + "\"chunked\":\"chat_messages\",\"prompt_tokens\":398,\"cached_tokens\":160,"
            + "\"upstream\":\"http://10.0.3.17:8000\",\"schema_version\":2,\"prefix_chunks\":2,"
            + "\"tail_hashes\":[\"0x0f3c9b5e2d7a6184\",\"0x9e1d47c0b3a2f568\","
            + "\"0x51b8e2a9c4d70f36\"]}";

    // When
    LookupParser.Parsed parsed = parse(line);

    // Then
    assertThat(parsed.v2()).isTrue();
    assertThat(parsed.prefixChunks()).isEqualTo(2);
    assertThat(parsed.lookup().orElseThrow().keys())
        .containsExactly(0x0f3c9b5e2d7a6184L, 0x9e1d47c0b3a2f568L, 0x51b8e2a9c4d70f36L);
    assertThat(parsed.lookup().orElseThrow().upstream()).isEqualTo("http://10.0.3.17:8000");
  }

  @Test
  void shouldRefuseVersion2RecordsThatAreNotWhatVersion2Writes() {
    String common = "{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":12,";
    assertThat(bad(common + "\"schema_version\":2,\"prefix_chunks\":2}"))
        .isEqualTo("no tail_hashes (schema_version 2)");
    assertThat(bad(common + "\"schema_version\":2,\"tail_hashes\":[]}"))
        .isEqualTo("no prefix_chunks (schema_version 2)");
    assertThat(
            bad(
                common
                    + "\"schema_version\":2,\"prefix_chunks\":0,\"tail_hashes\":[],"
                    + "\"chunk_hashes\":[\"0x1\"]}"))
        .isEqualTo("a version 2 record has chunk_hashes (it lists prefix_chunks and tail_hashes)");
    assertThat(bad(common + "\"schema_version\":3,\"prefix_chunks\":0,\"tail_hashes\":[]}"))
        .isEqualTo("schema_version 3 is not one this reader knows (2, or none for version 1)");
    assertThat(bad(common + "\"prefix_chunks\":1,\"tail_hashes\":[\"0x1\"]}"))
        .isEqualTo("prefix_chunks and tail_hashes need schema_version 2");
    assertThat(bad(common + "\"schema_version\":2,\"prefix_chunks\":-1,\"tail_hashes\":[]}"))
        .isEqualTo("prefix_chunks must be >= 0, got -1");
    assertThat(
            bad(
                common
                    + "\"schema_version\":2,\"prefix_chunks\":2,\"tail_hashes\":[\"0x1\",\"0x2\"]}"))
        .isEqualTo("seq_len 12 is less than (prefix_chunks + tail_hashes) x chunk_size = 4 x 4");
    assertThat(bad(common + "\"schema_version\":2,\"prefix_chunks\":0,\"tail_hashes\":[\"zz\"]}"))
        .isEqualTo("tail_hashes[0] is not a hex hash: not a hex digit at index 0");
  }

  @Test
  void shouldSayWhatIsWrongWithABadLineWithoutQuotingIt() {
    assertThat(bad("{\"timestamp\":\"soon\"}"))
        .isEqualTo("timestamp is not a number (Unix seconds)");
    assertThat(bad("{\"timestamp\":1,\"seq_len\":4,\"chunk_hashes\":[]}"))
        .isEqualTo("no chunk_size");
    assertThat(bad("{\"timestamp\":1,\"chunk_size\":0,\"seq_len\":4,\"chunk_hashes\":[]}"))
        .isEqualTo("chunk_size must be a whole number >= 1, got 0");
    assertThat(bad("{\"timestamp\":1,\"chunk_size\":4,\"chunk_hashes\":[]}"))
        .isEqualTo("no seq_len");
    assertThat(bad("{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":4}"))
        .isEqualTo("no chunk_hashes");
    assertThat(bad("{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":-4,\"chunk_hashes\":[]}"))
        .isEqualTo("seq_len must be >= 0, got -4");
    assertThat(bad("{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":4,\"chunk_hashes\":[true]}"))
        .isEqualTo("chunk_hashes[0] is neither a hex string nor a number");
    assertThat(bad("{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":4,\"chunk_hashes\":[\"0x\"]}"))
        .isEqualTo("chunk_hashes[0] is not a hex hash: no hex digits");
    assertThat(
            bad(
                "{\"timestamp\":1,\"chunk_size\":4,\"seq_len\":4,\"chunk_hashes\":[],"
                    + "\"prompt_tokens\":3,\"cached_tokens\":4}"))
        .isEqualTo("cached_tokens 4 is more than prompt_tokens 3");
    assertThat(bad("{\"timestamp\":1} {}")).isEqualTo("trailing data after the JSON object");
    assertThat(bad("{\"key\":\"k\",\"payload\":7}"))
        .isEqualTo("envelope payload is neither a JSON string nor an object");
    assertThat(bad("{\"timestamp\":1,\"secret\":\"do not print me\"")).doesNotContain("print me");
  }

  @Test
  void shouldMapHexHashesToTheirValueAndFoldWiderOnes() {
    assertThat(LookupParser.key("0x00000000000000ff")).isEqualTo(0xff);
    assertThat(LookupParser.key("0xFF")).isEqualTo(0xff);
    assertThat(LookupParser.key("ff")).isEqualTo(0xff);
    assertThat(LookupParser.key("0x8000000000000000")).isEqualTo(Long.MIN_VALUE);
    String wide = "0x" + "ab".repeat(32);
    assertThat(LookupParser.key(wide)).isEqualTo(LookupParser.key(wide));
    assertThat(LookupParser.key(wide))
        .isNotEqualTo(LookupParser.key("0x" + "ab".repeat(31) + "ac"));
    assertThat(LookupParser.key(wide)).isNotEqualTo(LookupParser.key("0x" + "ab".repeat(8)));
    assertThatThrownBy(() -> LookupParser.key("0xg1")).hasMessage("not a hex digit at index 2");
  }
}
