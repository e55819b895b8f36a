package io.prefixlog.schemas.dlq;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A rejected input, kept whole on {@code dlq} under the key it arrived with.
 *
 * <p>{@code reason} is a stable code ({@code invalid_json}, {@code unknown_schema_version}, {@code
 * missing_field}, {@code body_too_large}, {@code body_mismatch}, {@code invalid_body_encoding},
 * {@code malformed_msgpack}, …) that metrics count by; {@code detail} says what exactly was wrong
 * and never quotes the content. {@code original_key} and {@code original_value} are the input's
 * bytes, base64-encoded, so nothing is lost whatever they were.
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
    @JsonProperty("original_value") String originalValue) {

  public static final int SCHEMA_VERSION = 1;

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
        + "]";
  }
}
