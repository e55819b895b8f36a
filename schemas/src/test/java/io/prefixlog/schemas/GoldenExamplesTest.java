package io.prefixlog.schemas;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Map.entry;
import static java.util.stream.Collectors.toList;
import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.ValidationMessage;
import io.prefixlog.schemas.WireSchemas.Golden;
import io.prefixlog.schemas.WireSchemas.WireSchema;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The golden examples of every schema: valid ones validate and round-trip byte for byte through
 * their record; invalid ones fail, each for the one rule its file name names.
 */
class GoldenExamplesTest {

  /**
   * The one validation error each invalid example must produce: keyword, instance location and, for
   * keywords about a property name, that name.
   */
  private static final Map<String, String> EXPECTED_ERRORS =
      Map.ofEntries(
          entry("block-index-entry.v1/invalid-copies-beyond-int.json", "maximum $.copies"),
          entry("block-index-entry.v1/invalid-copies-zero.json", "minimum $.copies"),
          entry("block-index-entry.v1/invalid-hash-not-hex.json", "pattern $.hash"),
          entry(
              "block-index-entry.v1/invalid-missing-last-stored-ms.json",
              "required $ last_stored_ms"),
          entry("block-index-entry.v1/invalid-null-session-id.json", "type $.session_id"),
          entry("chunk-lookup.v1/invalid-chunk-hash-as-integer.json", "type $.chunk_hashes[0]"),
          entry("chunk-lookup.v1/invalid-chunk-hash-upper-case.json", "pattern $.chunk_hashes[0]"),
          entry(
              "chunk-lookup.v1/invalid-chunk-hash-without-0x-prefix.json",
              "pattern $.chunk_hashes[1]"),
          entry("chunk-lookup.v1/invalid-chunk-size-zero.json", "minimum $.chunk_size"),
          entry("chunk-lookup.v1/invalid-chunk-unit-unknown.json", "enum $.chunk_unit"),
          entry("chunk-lookup.v1/invalid-upstream-empty.json", "minLength $.upstream"),
          entry(
              "chunk-lookup.v1/invalid-lmcache-dtypes-field.json", "additionalProperties $ dtypes"),
          entry("chunk-lookup.v1/invalid-missing-chunk-hashes.json", "required $ chunk_hashes"),
          entry("chunk-lookup.v1/invalid-missing-session-key.json", "required $ session_key"),
          entry("chunk-lookup.v2/invalid-whole-list-as-chunk-hashes.json", "not $"),
          entry(
              "raw-request-event.v2/invalid-body-encoding-in-header.json",
              "additionalProperties $ body_encoding"),
          entry("raw-request-event.v2/invalid-schema-version-1.json", "const $.schema_version"),
          entry("raw-request-event.v2/invalid-body-in-header.json", "additionalProperties $ body"),
          entry("raw-request-event.v2/invalid-missing-body-sha256.json", "required $ body_sha256"),
          entry(
              "raw-request-event.v2/invalid-original-body-len-without-truncated.json",
              "required $ truncated"),
          entry("chunk-lookup.v2/invalid-missing-tail-hashes.json", "required $ tail_hashes"),
          entry("chunk-lookup.v2/invalid-prefix-chunks-negative.json", "minimum $.prefix_chunks"),
          entry("chunk-lookup.v2/invalid-schema-version-1.json", "const $.schema_version"),
          entry(
              "erase-request.v1/invalid-before-without-session-key.json", "required $ session_key"),
          entry("erase-request.v1/invalid-erase-id-with-space.json", "pattern $.erase_id"),
          entry(
              "erase-request.v1/invalid-neither-session-nor-kv.json",
              "required $ kv_session_id_sha256"),
          entry("erase-request.v1/invalid-session-key-and-kv-digests.json", "not $"),
          entry(
              "erase-request.v1/invalid-kv-id-not-a-digest.json",
              "pattern $.kv_session_id_sha256[0]"),
          entry("erase-request.v1/invalid-unknown-field.json", "additionalProperties $ text"),
          entry("erasure-ack.v1/invalid-chain-upper-case.json", "pattern $.chain"),
          entry(
              "erasure-ack.v1/invalid-negative-blocks-scrubbed.json", "minimum $.blocks_scrubbed"),
          entry("erasure-ack.v1/invalid-outcome-unknown.json", "enum $.outcome"),
          entry(
              "erasure-ack.v1/invalid-session-scope-without-session-key.json",
              "required $ session_key"),
          entry("dead-letter.v1/invalid-missing-reason.json", "required $ reason"),
          entry(
              "dead-letter.v1/invalid-offset-without-partition.json",
              "dependentRequired $ source_offset"),
          entry(
              "dead-letter.v1/invalid-original-value-not-base64.json", "pattern $.original_value"),
          entry(
              "dead-letter.v1/invalid-original-value-url-safe-base64.json",
              "pattern $.original_value"),
          entry("dead-letter.v1/invalid-reason-not-snake-case.json", "pattern $.reason"),
          entry("dead-letter.v1/invalid-schema-version-2.json", "const $.schema_version"),
          entry("dead-letter.v1/invalid-source-topic-with-space.json", "pattern $.source_topic"),
          entry(
              "dead-letter.v1/invalid-truncated-without-sha256.json",
              "dependentRequired $ truncated"),
          entry("delta-record.v2/invalid-base64-body-with-whitespace.json", "pattern $.body"),
          entry("delta-record.v2/invalid-copy-from-negative.json", "minimum $.ops[0].from"),
          entry("delta-record.v2/invalid-copy-len-zero.json", "minimum $.ops[2].len"),
          entry("delta-record.v2/invalid-copy-missing-from.json", "required $.ops[4] from"),
          entry(
              "delta-record.v2/invalid-copy-with-text.json", "additionalProperties $.ops[0] text"),
          entry("delta-record.v2/invalid-delta-chain-depth-zero.json", "minimum $.chain_depth"),
          entry("delta-record.v2/invalid-delta-missing-base-sha256.json", "required $ base_sha256"),
          entry("delta-record.v2/invalid-delta-missing-ops.json", "required $ ops"),
          entry("delta-record.v2/invalid-delta-with-body.json", "false $.body"),
          entry(
              "delta-record.v2/invalid-delta-with-keyframe-reason.json", "false $.keyframe_reason"),
          entry(
              "delta-record.v2/invalid-hit-rate-above-one.json", "maximum $.prefix_cache_hit_rate"),
          entry("delta-record.v2/invalid-insert-empty-text.json", "minLength $.ops[1].text"),
          entry(
              "delta-record.v2/invalid-insert-with-len.json", "additionalProperties $.ops[1] len"),
          entry("delta-record.v2/invalid-keyframe-chain-depth-nonzero.json", "const $.chain_depth"),
          entry(
              "delta-record.v2/invalid-keyframe-missing-body-encoding.json",
              "required $ body_encoding"),
          entry("delta-record.v2/invalid-keyframe-reason-unknown.json", "enum $.keyframe_reason"),
          entry("delta-record.v2/invalid-keyframe-with-base-seq.json", "false $.base_seq"),
          entry("delta-record.v2/invalid-keyframe-with-ops.json", "false $.ops"),
          entry("delta-record.v2/invalid-kind-unknown.json", "enum $.kind"),
          entry("delta-record.v2/invalid-missing-prefix-len.json", "required $ prefix_len"),
          entry("delta-record.v2/invalid-op-as-mixed-array.json", "type $.ops[0]"),
          entry("delta-record.v2/invalid-op-missing-op.json", "required $.ops[0] op"),
          entry("delta-record.v2/invalid-op-unknown-move.json", "enum $.ops[0].op"),
          entry("delta-record.v2/invalid-schema-version-1.json", "const $.schema_version"),
          entry("delta-record.v2/invalid-seq-zero.json", "minimum $.seq"),
          entry("delta-record.v3/invalid-base64-body-with-whitespace.json", "pattern $.body"),
          entry("delta-record.v3/invalid-copy-from-negative.json", "minimum $.ops[0].from"),
          entry("delta-record.v3/invalid-copy-len-zero.json", "minimum $.ops[2].len"),
          entry("delta-record.v3/invalid-copy-missing-from.json", "required $.ops[4] from"),
          entry(
              "delta-record.v3/invalid-copy-with-text.json", "additionalProperties $.ops[0] text"),
          entry("delta-record.v3/invalid-delta-chain-depth-zero.json", "minimum $.chain_depth"),
          entry("delta-record.v3/invalid-delta-missing-base-sha256.json", "required $ base_sha256"),
          entry("delta-record.v3/invalid-delta-missing-ops.json", "required $ ops"),
          entry("delta-record.v3/invalid-delta-with-body.json", "false $.body"),
          entry(
              "delta-record.v3/invalid-delta-with-keyframe-reason.json", "false $.keyframe_reason"),
          entry(
              "delta-record.v3/invalid-hit-rate-above-one.json", "maximum $.prefix_cache_hit_rate"),
          entry("delta-record.v3/invalid-insert-empty-text.json", "minLength $.ops[1].text"),
          entry(
              "delta-record.v3/invalid-insert-with-len.json", "additionalProperties $.ops[1] len"),
          entry("delta-record.v3/invalid-keyframe-chain-depth-nonzero.json", "const $.chain_depth"),
          entry(
              "delta-record.v3/invalid-keyframe-missing-body-encoding.json",
              "required $ body_encoding"),
          entry("delta-record.v3/invalid-keyframe-reason-unknown.json", "enum $.keyframe_reason"),
          entry("delta-record.v3/invalid-keyframe-with-base-seq.json", "false $.base_seq"),
          entry("delta-record.v3/invalid-keyframe-with-ops.json", "false $.ops"),
          entry("delta-record.v3/invalid-kind-unknown.json", "enum $.kind"),
          entry("delta-record.v3/invalid-missing-prefix-len.json", "required $ prefix_len"),
          entry("delta-record.v3/invalid-op-as-mixed-array.json", "type $.ops[0]"),
          entry("delta-record.v3/invalid-op-missing-op.json", "required $.ops[0] op"),
          entry("delta-record.v3/invalid-op-unknown-move.json", "enum $.ops[0].op"),
          entry("delta-record.v3/invalid-schema-version-2.json", "const $.schema_version"),
          entry("delta-record.v3/invalid-seq-zero.json", "minimum $.seq"),
          entry("delta-record.v3/invalid-missing-chain.json", "required $ chain"),
          entry("delta-record.v3/invalid-chain-not-hex.json", "pattern $.chain"),
          entry("kv-event-batch.v1/invalid-batch-with-empty-events.json", "minItems $.events"),
          entry("kv-event-batch.v1/invalid-batch-with-missing-range.json", "false $.missing_from"),
          entry("kv-event-batch.v1/invalid-batch-without-events.json", "required $ events"),
          entry(
              "kv-event-batch.v1/invalid-block-hash-as-integer.json",
              "type $.events[1].block_hashes[0]"),
          entry(
              "kv-event-batch.v1/invalid-block-hash-odd-length.json",
              "pattern $.events[0].block_hashes[1]"),
          entry(
              "kv-event-batch.v1/invalid-block-hash-upper-case.json",
              "pattern $.events[0].parent_block_hash"),
          entry(
              "kv-event-batch.v1/invalid-block-removed-without-hashes.json",
              "required $.events[1] block_hashes"),
          entry(
              "kv-event-batch.v1/invalid-block-stored-with-empty-hashes.json",
              "minItems $.events[2].block_hashes"),
          entry("kv-event-batch.v1/invalid-event-without-type.json", "required $.events[2] type"),
          entry(
              "kv-event-batch.v1/invalid-gap-marker-missing-missing-to.json",
              "required $ missing_to"),
          entry("kv-event-batch.v1/invalid-marker-unknown.json", "enum $.marker"),
          entry("kv-event-batch.v1/invalid-marker-with-events.json", "false $.events"),
          entry("kv-event-batch.v1/invalid-missing-seq.json", "required $ seq"),
          entry(
              "kv-event-batch.v1/invalid-null-parent-block-hash.json",
              "type $.events[1].parent_block_hash"),
          entry(
              "kv-event-batch.v1/invalid-restart-marker-with-missing-from.json",
              "false $.missing_from"),
          entry(
              "kv-event-batch.v1/invalid-token-ids-kept.json",
              "additionalProperties $.events[0] token_ids"),
          entry("raw-request-event.v1/invalid-base64-body-not-base64.json", "pattern $.body"),
          entry("raw-request-event.v1/invalid-body-encoding-latin1.json", "enum $.body_encoding"),
          entry("raw-request-event.v1/invalid-body-len-negative.json", "minimum $.body_len"),
          entry(
              "raw-request-event.v1/invalid-body-sha256-upper-case.json", "pattern $.body_sha256"),
          entry(
              "raw-request-event.v1/invalid-cached-tokens-outside-usage.json",
              "additionalProperties $.response cached_tokens"),
          entry(
              "raw-request-event.v1/invalid-header-authorization-captured.json",
              "propertyNames $.headers authorization"),
          entry(
              "raw-request-event.v1/invalid-header-name-not-lower-case.json",
              "propertyNames $.headers X-Session-Id"),
          entry("raw-request-event.v1/invalid-method-lower-case.json", "pattern $.method"),
          entry("raw-request-event.v1/invalid-missing-body-sha256.json", "required $ body_sha256"),
          entry("raw-request-event.v1/invalid-missing-session-key.json", "required $ session_key"),
          entry("raw-request-event.v1/invalid-null-model.json", "type $.model"),
          entry(
              "raw-request-event.v1/invalid-original-body-len-without-truncated.json",
              "required $ truncated"),
          entry("raw-request-event.v1/invalid-path-not-absolute.json", "pattern $.path"),
          entry(
              "raw-request-event.v1/invalid-response-error-not-snake-case.json",
              "pattern $.response.error"),
          entry(
              "raw-request-event.v1/invalid-response-status-out-of-range.json",
              "maximum $.response.status"),
          entry("raw-request-event.v1/invalid-schema-version-2.json", "const $.schema_version"),
          entry("raw-request-event.v1/invalid-sampled-out-with-body.json", "not $"),
          entry(
              "raw-request-event.v1/invalid-prompt-chunks-with-body.json",
              "required $ body_omitted"),
          entry(
              "raw-request-event.v1/invalid-missing-body-without-body-omitted.json",
              "required $ body"),
          entry("request-metadata.v1/invalid-turn-and-body-omitted.json", "not $"),
          entry(
              "request-metadata.v1/invalid-neither-turn-nor-body-omitted.json",
              "required $ body_omitted"),
          entry("request-metadata.v1/invalid-turn-without-chain.json", "pattern $.turn"),
          entry("request-metadata.v1/invalid-body-field.json", "additionalProperties $ body"),
          entry("request-metadata.v2/invalid-schema-version-1.json", "const $.schema_version"),
          entry("request-metadata.v2/invalid-body-field.json", "additionalProperties $ body"),
          entry("request-metadata.v2/invalid-missing-request-id.json", "required $ request_id"),
          entry(
              "request-metadata.v2/invalid-client-request-id-empty.json",
              "minLength $.client_request_id"),
          entry("request-metadata.v3/invalid-schema-version-2.json", "const $.schema_version"),
          entry("request-metadata.v3/invalid-tenant-empty.json", "minLength $.tenant"),
          entry("request-metadata.v3/invalid-tenant-not-a-string.json", "type $.tenant"),
          entry("request-metadata.v3/invalid-missing-request-id.json", "required $ request_id"),
          entry("raw-request-event.v1/invalid-capture-id-empty.json", "minLength $.capture_id"),
          entry("raw-request-event.v1/invalid-session-key-not-hex.json", "pattern $.session_key"),
          entry(
              "raw-request-event.v1/invalid-session-key-source-unknown.json",
              "pattern $.session_key_source"),
          entry("raw-request-event.v1/invalid-ts-in-seconds-as-float.json", "type $.ts"),
          entry(
              "raw-request-event.v1/invalid-usage-outside-response.json",
              "additionalProperties $ usage"),
          entry(
              "source-stats.v1/invalid-lifetime-p50-without-p99.json",
              "required $ lifetime_p99_ms"),
          entry("source-stats.v1/invalid-missing-gaps.json", "required $ gaps"),
          entry(
              "source-stats.v1/invalid-per-minute-rate-negative.json", "minimum $.stores_per_min"),
          entry("source-stats.v1/invalid-removals-total-negative.json", "minimum $.removals_total"),
          entry(
              "source-stats.v1/invalid-session-count-not-integer.json",
              "type $.blocks_stored_by_session.c-8812-04f1"));

  static Stream<Golden> validExamples() {
    return WireSchemas.valid().stream();
  }

  static Stream<Golden> invalidExamples() {
    return WireSchemas.invalid().stream();
  }

  static Stream<WireSchema> schemas() {
    return WireSchemas.ALL.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validExamples")
  void shouldValidateEveryValidExampleWithoutErrors(Golden golden) {
    // Given
    JsonNode instance = golden.tree();

    // When
    List<ValidationMessage> errors = WireSchemas.errors(golden.schema(), instance);

    // Then
    assertThat(errors).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validExamples")
  void shouldRoundTripEveryValidExampleByteForByte(Golden golden) {
    // Given
    byte[] expected = golden.bytes();

    // When
    byte[] written = roundTrip(golden.schema().type(), expected);

    // Then
    assertThat(new String(written, UTF_8)).isEqualTo(new String(expected, UTF_8));
    assertThat(written).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidExamples")
  void shouldRejectEveryInvalidExampleForTheRuleItNames(Golden golden) {
    // Given
    JsonNode instance = golden.tree();

    // When
    List<String> errors =
        WireSchemas.errors(golden.schema(), instance).stream()
            .map(GoldenExamplesTest::describe)
            .collect(toList());

    // Then
    assertThat(errors).containsExactly(EXPECTED_ERRORS.get(golden.toString()));
  }

  @Test
  void shouldExpectAnErrorForExactlyTheInvalidExamples() {
    // Given
    List<Golden> invalid = WireSchemas.invalid();

    // When
    List<String> names = invalid.stream().map(Golden::toString).sorted().collect(toList());

    // Then
    assertThat(names).containsExactlyInAnyOrderElementsOf(EXPECTED_ERRORS.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void shouldHaveSeveralValidAndInvalidExamplesForEverySchema(WireSchema schema) throws Exception {
    // Given
    Path dir = WireSchemas.valid(schema).get(0).path().getParent();

    // When
    List<String> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.map(p -> p.getFileName().toString()).collect(toList());
    }

    // Then
    assertThat(files).allMatch(f -> f.matches("(valid|invalid)-[a-z0-9]+(-[a-z0-9]+)*\\.json"));
    assertThat(files.stream().filter(f -> f.startsWith("valid-")).count())
        .isGreaterThanOrEqualTo(2);
    assertThat(files.stream().filter(f -> f.startsWith("invalid-")).count())
        .isGreaterThanOrEqualTo(4);
  }

  @Test
  void shouldKeepGoldenDirectoriesAndSchemaFilesOneToOne() {
    // Given
    List<String> names = WireSchemas.ALL.stream().map(WireSchema::name).collect(toList());

    // When
    List<String> dirs = WireSchemas.goldenDirectoryNames();
    List<String> files = WireSchemas.schemaFileNames();

    // Then
    assertThat(dirs).containsExactlyInAnyOrderElementsOf(names);
    assertThat(files)
        .containsExactlyInAnyOrderElementsOf(
            WireSchemas.ALL.stream().map(WireSchema::fileName).collect(toList()));
  }

  static Stream<Golden> examplesWithBodies() {
    return Stream.concat(
            WireSchemas.valid(WireSchemas.byName("raw-request-event.v1")).stream(),
            Stream.concat(
                WireSchemas.valid(WireSchemas.byName("delta-record.v2")).stream(),
                WireSchemas.valid(WireSchemas.byName("delta-record.v3")).stream()))
        .filter(g -> g.tree().has("body"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examplesWithBodies")
  void shouldDescribeTheExactBodyBytesInEveryExampleWithABody(Golden golden) {
    // Given
    JsonNode tree = golden.tree();
    BodyEncoding encoding = BodyEncoding.fromWireName(tree.get("body_encoding").asText()).get();

    // When
    byte[] body = encoding.decode(tree.get("body").asText());

    // Then
    assertThat((long) body.length).isEqualTo(tree.get("body_len").asLong());
    assertThat(sha256(body)).isEqualTo(tree.get("body_sha256").asText());
    assertThat(BodyEncoding.encode(body))
        .isEqualTo(new BodyEncoding.EncodedBody(tree.get("body").asText(), encoding));
  }

  @Test
  void shouldGiveTheFullLengthOfTheTruncatedRawExample() {
    // Given
    Golden golden = golden("raw-request-event.v1", "valid-truncated-completion.json");

    // When
    RawRequestEvent event = JsonSerde.of(RawRequestEvent.class).fromBytes(golden.bytes());

    // Then
    assertThat(event.truncated()).isTrue();
    assertThat(event.bodyLen()).isEqualTo(256L);
    assertThat(event.originalBodyLen()).isGreaterThan(event.bodyLen());
  }

  static Stream<Golden> deltaExamples() {
    return Stream.concat(
            WireSchemas.valid(WireSchemas.byName("delta-record.v2")).stream(),
            WireSchemas.valid(WireSchemas.byName("delta-record.v3")).stream())
        .filter(g -> g.tree().get("kind").asText().equals(DeltaRecord.KIND_DELTA));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deltaExamples")
  void shouldRebuildEveryDeltaExampleFromItsKeyframeExample(Golden golden) {
    // Given
    JsonSerde<DeltaRecord> serde = JsonSerde.of(DeltaRecord.class);
    DeltaRecord delta = serde.fromBytes(golden.bytes());
    DeltaRecord base =
        WireSchemas.valid(golden.schema()).stream()
            .map(g -> serde.fromBytes(g.bytes()))
            .filter(r -> r.sessionKey().equals(delta.sessionKey()))
            .filter(r -> r.seq().equals(delta.baseSeq()))
            .findFirst()
            .orElseThrow();
    String baseText = base.body();

    // When
    String rebuilt = apply(baseText, delta.ops());

    // Then
    byte[] bytes = rebuilt.getBytes(UTF_8);
    assertThat(sha256(baseText.getBytes(UTF_8))).isEqualTo(delta.baseSha256());
    assertThat((long) bytes.length).isEqualTo(delta.bodyLen());
    assertThat(sha256(bytes)).isEqualTo(delta.bodySha256());
    assertThat(delta.prefixLen()).isEqualTo(commonPrefixCodePoints(baseText, rebuilt));
    assertThat(delta.baseSeq()).isLessThan(delta.seq());
  }

  static Stream<Golden> lookupExamples() {
    return Stream.concat(
        WireSchemas.valid(WireSchemas.byName("chunk-lookup.v1")).stream(),
        WireSchemas.valid(WireSchemas.byName("chunk-lookup.v2")).stream());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lookupExamples")
  void shouldHaveOneHashPerFullChunkInEveryLookupExample(Golden golden) {
    // Given
    ChunkLookupRecord lookup = JsonSerde.of(ChunkLookupRecord.class).fromBytes(golden.bytes());

    // When
    long fullChunks = lookup.seqLen() / lookup.chunkSize();

    // Then: version 1 holds them all, version 2 those after the ones it shares
    List<String> written = lookup.isV2() ? lookup.tailHashes() : lookup.chunkHashes();
    int shared = lookup.isV2() ? lookup.prefixChunks() : 0;
    assertThat(shared + written.size()).isEqualTo((int) fullChunks);
    assertThat(written.stream().collect(toSet())).hasSize(written.size());
  }

  private static Golden golden(String schema, String file) {
    return WireSchemas.valid(WireSchemas.byName(schema)).stream()
        .filter(g -> g.fileName().equals(file))
        .findFirst()
        .orElseThrow();
  }

  private static <T> byte[] roundTrip(Class<T> type, byte[] bytes) {
    JsonSerde<T> serde = JsonSerde.of(type);
    return serde.toBytes(serde.fromBytes(bytes));
  }

  private static String describe(ValidationMessage message) {
    String description = message.getType() + " " + message.getInstanceLocation();
    return message.getProperty() == null ? description : description + " " + message.getProperty();
  }

  /** Applies ops the way any JSON tool would: offsets and lengths in code points of the base. */
  private static String apply(String base, List<DeltaOp> ops) {
    int[] codePoints = base.codePoints().toArray();
    StringBuilder out = new StringBuilder();
    for (DeltaOp op : ops) {
      if (op instanceof DeltaOp.Copy copy) {
        out.append(new String(codePoints, copy.from(), copy.len()));
      } else if (op instanceof DeltaOp.Insert insert) {
        out.append(insert.text());
      } else {
        throw new AssertionError("unknown op " + op.getClass());
      }
    }
    return out.toString();
  }

  private static long commonPrefixCodePoints(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    int n = 0;
    while (n < x.length && n < y.length && x[n] == y[n]) {
      n++;
    }
    return n;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
