package io.prefixlog.schemas.dlq;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A rejected input, kept whole on {@code dlq} under the key it arrived with.
 *
 * <p>{@code reason} is a stable code ({@code invalid_json}, {@code unknown_schema_version}, {@code
 * missing_field}, {@code body_too_large}, {@code body_mismatch}, {@code invalid_body_encoding},
 * {@code malformed_msgpack}, {@code processing_error}, {@code deserialization_error}, …) that
 * metrics count by; {@code detail} says what exactly was wrong and never quotes the content. {@code
 * original_key} and {@code original_value} are the input's bytes, base64-encoded, so nothing is
 * lost whatever they were.
 *
 * <p>Unless the copy would not fit in a record: then {@code truncated} is true, {@code
 * original_value} holds only a prefix of the value, and {@code original_value_len} and {@code
 * original_value_sha256} say what the whole was (the input itself stays in its source topic, at the
 * coordinates given, until that topic's retention). The three fields are optional additions to
 * version 1: they are absent from letters kept whole, and readers that predate them ignore them.
 */
public record DeadLetter(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("ts") Long ts,
    @JsonProperty("producer") String producer,
    @JsonProperty("source_topic") String sourceTopic,
    @JsonProperty("source_partition") Integer sourcePartition,
    @JsonProperty("source_offset") Long sourceOffset,
    @JsonProperty("reason") String reason,
    @JsonProperty("detail") String detail,
    @JsonProperty("original_key") String originalKey,
    @JsonProperty("original_value") String originalValue,
    @JsonProperty("truncated") Boolean truncated,
    @JsonProperty("original_value_len") Long originalValueLen,
    @JsonProperty("original_value_sha256") String originalValueSha256) {

  public static final int SCHEMA_VERSION = 1;

  /** A letter that keeps the whole input (the three truncation fields absent). */
  public DeadLetter(
      Integer schemaVersion,
      Long ts,
      String producer,
      String sourceTopic,
      Integer sourcePartition,
      Long sourceOffset,
      String reason,
      String detail,
      String originalKey,
      String originalValue) {
    this(
        schemaVersion,
        ts,
        producer,
        sourceTopic,
        sourcePartition,
        sourceOffset,
        reason,
        detail,
        originalKey,
        originalValue,
        null,
        null,
        null);
  }

  /** Whether {@code original_value} holds only a prefix of the input's value. */
  public boolean isTruncated() {
    return Boolean.TRUE.equals(truncated);
  }

  @Override
  public String toString() {
    return "DeadLetter[sourceTopic="
        + sourceTopic
        + ", sourcePartition="
        + sourcePartition
        + ", sourceOffset="
        + sourceOffset
        + ", reason="
        + reason
        + ", detail="
        + detail
        + (isTruncated() ? ", truncated from " + originalValueLen + " bytes" : "")
        + "]";
  }
}
