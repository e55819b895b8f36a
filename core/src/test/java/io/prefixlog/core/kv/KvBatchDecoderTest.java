package io.prefixlog.core.kv;

import static io.prefixlog.core.kv.Msgpack.list;
import static io.prefixlog.core.kv.Msgpack.map;
import static io.prefixlog.core.kv.Msgpack.pack;
import static io.prefixlog.core.kv.Msgpack.tokens;
import static io.prefixlog.core.kv.Msgpack.u64;
import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.kv.Msgpack.Raw;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden payloads in every layout vLLM shipped, built with msgpack-core's packer exactly as msgspec
 * lays them out, and the exact {@code kv.events} JSON each must give; and the exact failure of each
 * kind of bad payload.
 */
class KvBatchDecoderTest {
  private static final KvSource SOURCE = KvSource.of("tcp://10.0.3.17:5557", 0, "kv");
  private static final long SEQ = 18342;
  private static final long RECEIVED = 1_749_633_401_912L;
  private static final String HEAD =
      "{\"schema_version\":1,\"source\":\"tcp://10.0.3.17:5557|dp0|kv\","
          + "\"endpoint\":\"tcp://10.0.3.17:5557\",";
  private static final String SEQ_TS = "\"seq\":18342,\"ts\":1749633401912,";

  /** A 32-byte digest as vLLM sends with VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0. */
  private static final byte[] DIGEST_A =
      HexFormat.of().parseHex("7dc96f776c8423e57a2785489a3f9c43fb6e756876d6ad9a9cac4aa4e72ec193");

  private static final byte[] DIGEST_B =
      HexFormat.of().parseHex("4814d92093ac8a0f4a2163ab87dee509ba306a58f5888be0edcb2fcd0712028b");

  @Test
  void shouldDecodeTheCapturedV0260PayloadWithMapEventsAndAPositionalBatch() {
    // Given: volcano-sh/kthena issue #1535, as vLLM v0.26.0 sent it
    byte[] payload =
        pack(
            list(
                1789095808.8378847,
                list(
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(u64("15760518052499183552")),
                        "parent_block_hash",
                        null,
                        "token_ids",
                        tokens(16, 1000),
                        "block_size",
                        16,
                        "lora_id",
                        null,
                        "medium",
                        "GPU",
                        "lora_name",
                        null,
                        "extra_keys",
                        list((Object) null),
                        "group_idx",
                        0,
                        "kv_cache_spec_kind",
                        "full_attention")),
                0));

    // When
    String json = decodeToJson(payload);

    // Then
    assertThat(json)
        .isEqualTo(
            HEAD
                + "\"data_parallel_rank\":0,\"topic\":\"kv\","
                + SEQ_TS
                + "\"engine_ts\":1.7890958088378847E9,\"events\":["
                + "{\"type\":\"BlockStored\",\"block_hashes\":[\"dab89baa7b5857c0\"],"
                + "\"token_count\":16,\"block_size\":16,\"medium\":\"GPU\",\"group_idx\":0,"
                + "\"kv_cache_spec_kind\":\"full_attention\",\"extra_keys\":[null]}]}");
  }

  @Test
  void shouldDecodeLegacyTaggedArraysWithEveryPositionalField() {
    // Given: vLLM before PR #42892: events are arrays in declaration order, all fields present
    byte[] payload =
        pack(
            list(
                1749633401.8821,
                list(
                    list(
                        "BlockStored",
                        list(u64("13843178131355015499"), 6000000000000000001L),
                        u64("7433186429372749801"),
                        tokens(32, 7),
                        16,
                        3,
                        "GPU",
                        "sql-adapter",
                        list(list("sql-adapter", list("mm-1", 4)), null),
                        1,
                        "sliding_window",
                        4096,
                        "LOCAL"),
                    list("BlockRemoved", list(u64("18446744073709551615")), "CPU", 2, "REMOTE"),
                    list("AllBlocksCleared")),
                3));

    // When
    String json = decodeToJson(payload);

    // Then: the hashes as unsigned 64-bit hex; positions map to their names
    assertThat(json)
        .isEqualTo(
            HEAD
                + "\"data_parallel_rank\":3,\"topic\":\"kv\","
                + SEQ_TS
                + "\"engine_ts\":1.7496334018821E9,\"events\":["
                + "{\"type\":\"BlockStored\","
                + "\"block_hashes\":[\"c01cd92a89df194b\",\"53444835ec580001\"],"
                + "\"parent_block_hash\":\"6727fbacc00457e9\",\"token_count\":32,\"block_size\":16,"
                + "\"lora_id\":3,\"lora_name\":\"sql-adapter\",\"medium\":\"GPU\",\"group_idx\":1,"
                + "\"kv_cache_spec_kind\":\"sliding_window\",\"kv_cache_spec_sliding_window\":4096,"
                + "\"locality\":\"LOCAL\",\"extra_keys\":[[\"sql-adapter\",[\"mm-1\",4]],null]},"
                + "{\"type\":\"BlockRemoved\",\"block_hashes\":[\"ffffffffffffffff\"],"
                + "\"medium\":\"CPU\",\"group_idx\":2,\"locality\":\"REMOTE\"},"
                + "{\"type\":\"AllBlocksCleared\"}]}");
  }

  @Test
  void shouldDecodeTheTwoElementBatchAndShortArraysOfTheFirstReleases() {
    // Given: before PR #18925 (no rank) and #19737 (no medium): [ts, events], 6- and 2-arrays
    byte[] payload =
        pack(
            list(
                1715000000.5,
                list(
                    list("BlockStored", list(42L), null, tokens(16, 0), 16, null),
                    list("BlockRemoved", list(42L)))));

    // When
    String json = decodeToJson(payload);

    // Then: no rank, the later fields absent
    assertThat(json)
        .isEqualTo(
            HEAD
                + "\"topic\":\"kv\","
                + SEQ_TS
                + "\"engine_ts\":1.7150000005E9,\"events\":["
                + "{\"type\":\"BlockStored\",\"block_hashes\":[\"000000000000002a\"],"
                + "\"token_count\":16,\"block_size\":16},"
                + "{\"type\":\"BlockRemoved\",\"block_hashes\":[\"000000000000002a\"]}]}");
  }

  @Test
  void shouldDecodeAnOuterMapWithEventKeysInAnyOrderAndUnknownFieldsIgnored() {
    // Given: the intermediate EventBatch without array_like; "type" last; fields vLLM may add
    byte[] payload =
        pack(
            map(
                "data_parallel_rank",
                1,
                "future_batch_field",
                list(1, 2, 3),
                "events",
                list(
                    map(
                        "medium", "GPU",
                        "block_hashes", list(7L),
                        "ownership", "tier-2",
                        "token_ids", list(),
                        "session_id", "c-8812-04f1",
                        "remaining_copy_counts", list(1),
                        "type", "BlockStored"),
                    map("block_hashes", list(7L), "type", "BlockRemoved", "group_idx", 0)),
                "ts",
                1749633402.0));

    // When
    String json = decodeToJson(payload);

    // Then: a hash-only store counts 0 tokens
    assertThat(json)
        .isEqualTo(
            HEAD
                + "\"data_parallel_rank\":1,\"topic\":\"kv\","
                + SEQ_TS
                + "\"engine_ts\":1.749633402E9,\"events\":["
                + "{\"type\":\"BlockStored\",\"block_hashes\":[\"0000000000000007\"],"
                + "\"token_count\":0,\"medium\":\"GPU\",\"session_id\":\"c-8812-04f1\"},"
                + "{\"type\":\"BlockRemoved\",\"block_hashes\":[\"0000000000000007\"],"
                + "\"group_idx\":0}]}");
  }

  @Test
  void shouldRenderSignedAndByteHashesAsFixedWidthHex() {
    // Given: builtin hashing's negative int64s, and raw digests (USE_INT_BLOCK_HASHES=0)
    byte[] payload =
        pack(
            list(
                1.0,
                list(
                    map("type", "BlockStored", "block_hashes", list(-1L, -2L, Long.MIN_VALUE, 0L)),
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(DIGEST_A, DIGEST_B),
                        "parent_block_hash",
                        new byte[] {0x00, 0x0f},
                        "extra_keys",
                        list(list("lora", DIGEST_A), list(u64("18446744073709551615"))))),
                0));

    // When
    String json = decodeToJson(payload);

    // Then
    assertThat(json)
        .contains(
            "\"block_hashes\":[\"ffffffffffffffff\",\"fffffffffffffffe\",\"8000000000000000\","
                + "\"0000000000000000\"]")
        .contains(
            "\"block_hashes\":[\""
                + HexFormat.of().formatHex(DIGEST_A)
                + "\",\""
                + HexFormat.of().formatHex(DIGEST_B)
                + "\"],\"parent_block_hash\":\"000f\"")
        .contains(
            "\"extra_keys\":[[\"lora\",\""
                + HexFormat.of().formatHex(DIGEST_A)
                + "\"],[18446744073709551615]]");
  }

  @Test
  void shouldPassUnknownEventTypesThroughAsArraysTypeOnlyAndAsMapsWithTheirKnownFields() {
    // Given: a tagged array of a type not known here, and a map (vLLM's proposed BlockInactive)
    byte[] payload =
        pack(
            list(
                2.5,
                list(
                    list("FutureEvent", list(1L), "GPU", 99),
                    map(
                        "type", "BlockInactive",
                        "block_hashes", list(u64("7226089423413452750")),
                        "medium", "GPU",
                        "group_idx", 0,
                        "origin", "REUSED"),
                    map("type", "BlockPinned", "block_size", "sixteen", "medium", "GPU")),
                0));

    // When
    String json = decodeToJson(payload);

    // Then: a known name with an unexpected type in an unknown event is dropped, not failed
    assertThat(json)
        .endsWith(
            "\"events\":[{\"type\":\"FutureEvent\"},"
                + "{\"type\":\"BlockInactive\",\"block_hashes\":[\"64483a0b8dc41fce\"],"
                + "\"medium\":\"GPU\",\"group_idx\":0},"
                + "{\"type\":\"BlockPinned\",\"medium\":\"GPU\"}]}");
  }

  @Test
  void shouldReadNilAndAbsentOptionalFieldsAsAbsentAndEmptyRequiredTextAsAbsent() {
    // Given: every optional field nil in one map, omitted in another (msgspec omit_defaults)
    byte[] payload =
        pack(
            list(
                3.0,
                list(
                    map(
                        "type", "BlockStored",
                        "block_hashes", list(1L),
                        "parent_block_hash", null,
                        "token_ids", null,
                        "block_size", null,
                        "lora_id", null,
                        "medium", "",
                        "lora_name", "",
                        "extra_keys", null,
                        "group_idx", null,
                        "kv_cache_spec_kind", null,
                        "kv_cache_spec_sliding_window", null,
                        "locality", null,
                        "session_id", null),
                    map("type", "BlockRemoved", "block_hashes", list(1L))),
                null));

    // When
    String json = decodeToJson(payload);

    // Then: lora_name may be empty (the schema allows it); medium may not
    assertThat(json)
        .isEqualTo(
            HEAD
                + "\"topic\":\"kv\","
                + SEQ_TS
                + "\"engine_ts\":3.0,\"events\":["
                + "{\"type\":\"BlockStored\",\"block_hashes\":[\"0000000000000001\"],"
                + "\"lora_name\":\"\"},"
                + "{\"type\":\"BlockRemoved\",\"block_hashes\":[\"0000000000000001\"]}]}");
  }

  @Test
  void shouldAcceptAnIntegerTimestampAndIgnoreBatchElementsAfterTheRank() {
    // Given
    byte[] payload = pack(list(1749633402L, list(list("AllBlocksCleared")), 0, "future"));

    // When
    String json = decodeToJson(payload);

    // Then
    assertThat(json)
        .contains("\"engine_ts\":1.749633402E9,\"events\":[{\"type\":\"AllBlocksCleared\"}]");
  }

  @Test
  void shouldDecodeAnEmptyEventListAsAnEmptyBatch() {
    // When
    DecodeResult result = decode(pack(list(1.0, list(), 0)));

    // Then: decoded, but flagged: the contract has no batch without events
    assertThat(result).isInstanceOf(DecodedBatch.class);
    assertThat(((DecodedBatch) result).isEmpty()).isTrue();
  }

  @Test
  void shouldProduceRecordsThatTheKvEventBatchSchemaAccepts() {
    // Given: the layouts above, one payload each
    List<byte[]> payloads =
        List.of(
            pack(list(1.5, list(list("BlockStored", list(1L), 2L, tokens(16, 0), 16, null)), 0)),
            pack(
                map(
                    "ts",
                    1.5,
                    "events",
                    list(
                        map("type", "BlockStored", "block_hashes", list(DIGEST_A), "lora_id", 1),
                        map("type", "BlockInactive", "block_hashes", list(3L))))),
            pack(list(1.5, list(list("AllBlocksCleared"), list("BlockRemoved", list(-5L))))));

    for (byte[] payload : payloads) {
      // When
      KvEventBatch batch = ((DecodedBatch) decode(payload)).batch();

      // Then
      assertThat(KvBatchSchema.errors(batch)).as(KvBatchSchema.json(batch)).isEmpty();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Failures: the reason code and the exact detail

  @Test
  void shouldFailMalformedMsgpackWithItsPosition() {
    byte[] truncated = pack(list(1.0, list(list("BlockStored", list(1L)))));
    assertFailure(new byte[0], "malformed_msgpack", "empty payload");
    assertFailure(
        new byte[] {(byte) 0xc1}, "malformed_msgpack", "the reserved byte 0xc1 at byte 0");
    assertFailure(
        Arrays.copyOf(truncated, 5),
        "malformed_msgpack",
        "at byte 2: MessageInsufficientBufferException");
    assertFailure(
        Arrays.copyOf(truncated, truncated.length - 1),
        "malformed_msgpack",
        "block_hashes: an array of 1 elements with 0 bytes left");
    assertFailure(
        Arrays.copyOf(truncated, 16),
        "malformed_msgpack",
        "a value of 11 bytes with 3 bytes left at byte 13");
    assertFailure(
        concat(pack(list(1.0, list())), new byte[] {0x00}),
        "malformed_msgpack",
        "trailing bytes after the batch at byte 11");
    // array32 claiming 2^31-1 events in a 15-byte payload: refused before anything is allocated
    assertFailure(
        pack(list(1.0, new Raw(new byte[] {(byte) 0xdd, 0x7f, (byte) 0xff, (byte) 0xff, -1}))),
        "malformed_msgpack",
        "events: an array of 2147483647 elements with 0 bytes left");
    // bin32 claiming 2 GiB for a hash
    assertFailure(
        pack(
            list(
                1.0,
                list(
                    list(
                        "BlockRemoved",
                        list(new Raw(new byte[] {(byte) 0xc6, 0x7f, -1, -1, -1, 1, 2})))))),
        "malformed_msgpack",
        "a value of 2147483647 bytes with 2 bytes left at byte 31");
  }

  @Test
  void shouldFailPayloadsThatAreNotABatch() {
    assertFailure(pack("hello"), "not_a_batch", "expected an array or a map, found a str");
    assertFailure(
        pack(list(1.0)),
        "not_a_batch",
        "an array of 1 element(s), expected [ts, events] or [ts, events, data_parallel_rank]");
    assertFailure(pack(list(1.0, null)), "not_a_batch", "events: expected an array, found nil");
    assertFailure(pack(list("now", list())), "not_a_batch", "ts: expected a float, found a str");
    assertFailure(pack(list(-1.0, list())), "not_a_batch", "ts: not a finite time >= 0");
    assertFailure(pack(list(Double.NaN, list())), "not_a_batch", "ts: not a finite time >= 0");
    assertFailure(
        pack(list(1.0, list(), -1)), "not_a_batch", "data_parallel_rank: out of range: -1");
    assertFailure(
        pack(list(1.0, list(), "0")),
        "not_a_batch",
        "data_parallel_rank: expected an int, found a str");
    assertFailure(pack(map("ts", 1.0)), "not_a_batch", "a map without events");
  }

  @Test
  void shouldFailBatchesWithABadEvent() {
    assertBadEvent(list("BlockStored"), "event 0: expected an array or a map, found a str");
    assertBadEvent(list(list()), "event 0: an empty array, expected the type first");
    assertBadEvent(list(map()), "event 0: an empty map, expected a type");
    assertBadEvent(list(map("medium", "GPU")), "event 0: a map without a type");
    assertBadEvent(list(list(7, list(1L))), "event 0: type: expected a str, found an int");
    assertBadEvent(
        list(list("Block Stored")),
        "event 0: type: not a type name (a letter, then letters, digits, _)");
    assertBadEvent(
        list(list("AllBlocksCleared"), list("BlockStored", list(1L, 2.5))),
        "event 1: block_hashes: element 1: expected an int or a bin, found a float");
    assertBadEvent(
        list(list("BlockStored", list(new byte[0]))),
        "event 0: block_hashes: element 0: an empty bin");
    assertBadEvent(list(list("BlockStored")), "event 0: a BlockStored without block_hashes");
    assertBadEvent(
        list(map("type", "BlockRemoved", "block_hashes", list())),
        "event 0: a BlockRemoved without block_hashes");
    assertBadEvent(
        list(list("BlockStored", list(1L), null, list(1, "x"))),
        "event 0: token_ids: element 1: expected an int, found a str");
    assertBadEvent(
        list(list("BlockStored", list(1L), null, list(), 0)),
        "event 0: block_size: out of range: 0");
    assertBadEvent(
        list(map("type", "BlockStored", "block_hashes", list(1L), "group_idx", -1)),
        "event 0: group_idx: out of range: -1");
    assertBadEvent(
        list(map("type", "BlockRemoved", "block_hashes", list(1L), "medium", 1)),
        "event 0: medium: expected a str, found an int");
    assertBadEvent(
        list(map("type", "BlockStored", "block_hashes", list(1L), "extra_keys", "salt")),
        "event 0: extra_keys: expected an array, found a str");
    assertBadEvent(
        list(
            map(
                "type",
                "BlockStored",
                "block_hashes",
                list(1L),
                "extra_keys",
                list(map(list(1), "v")))),
        "event 0: extra_keys: a map key that is an array, not a str or an int");
  }

  @Test
  void shouldBoundTheNestingOfExtraKeys() {
    // Given: extra_keys nested 100,000 deep (each level a one-element array: one byte)
    byte[] deep = new byte[100_001];
    Arrays.fill(deep, (byte) 0x91);
    deep[deep.length - 1] = (byte) 0xc0; // the innermost value: nil
    byte[] payload =
        pack(
            list(
                1.0,
                list(
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(1L),
                        "extra_keys",
                        new Raw(deep)))));

    // When
    DecodeResult result = decode(payload);

    // Then
    assertThat(result)
        .isEqualTo(new DecodeFailure("bad_event", "event 0: extra_keys: nested deeper than 16"));
  }

  @Test
  void shouldNeverLetAnExceptionOut() {
    // Given: every one-byte and two-byte payload
    List<DecodeResult> results = new ArrayList<>();
    for (int a = 0; a < 256; a++) {
      results.add(decode(new byte[] {(byte) a}));
      for (int b = 0; b < 256; b++) {
        results.add(decode(new byte[] {(byte) a, (byte) b}));
      }
    }

    // Then: all classified, no decoder errors, and no batch (the shortest batch takes 3 bytes)
    assertThat(results).hasSize(256 + 256 * 256).doesNotContainNull();
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r).isInstanceOf(DecodeFailure.class);
              assertThat(((DecodeFailure) r).reason()).isNotEqualTo("decoder_error");
            });
  }

  // ---------------------------------------------------------------------------------------------

  private static DecodeResult decode(byte[] payload) {
    return KvBatchDecoder.decode(payload, SOURCE, SEQ, RECEIVED);
  }

  private static String decodeToJson(byte[] payload) {
    DecodeResult result = decode(payload);
    assertThat(result).isInstanceOf(DecodedBatch.class);
    KvEventBatch batch = ((DecodedBatch) result).batch();
    assertThat(KvBatchSchema.errors(batch)).as(KvBatchSchema.json(batch)).isEmpty();
    return KvBatchSchema.json(batch);
  }

  private static void assertFailure(byte[] payload, String reason, String detail) {
    assertThat(decode(payload)).isEqualTo(new DecodeFailure(reason, detail));
  }

  private static void assertBadEvent(List<Object> events, String detail) {
    assertFailure(pack(list(1.0, events, 0)), "bad_event", detail);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
