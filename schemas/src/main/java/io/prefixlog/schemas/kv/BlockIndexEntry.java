package io.prefixlog.schemas.kv;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A block the engine holds, keyed {@code source/hash} on the compacted {@code kv.block-index}; a
 * tombstone (null value) once its last copy is gone. {@code copies} counts the physical copies:
 * vLLM does not deduplicate identical blocks, so one removal does not mean the hash is gone.
 */
public record BlockIndexEntry(
    @JsonProperty("source") String source,
    @JsonProperty("hash") String hash,
    @JsonProperty("medium") String medium,
    @JsonProperty("group_idx") Integer groupIdx,
    @JsonProperty("copies") Integer copies,
    @JsonProperty("token_count") Integer tokenCount,
    @JsonProperty("block_size") Integer blockSize,
    @JsonProperty("parent_block_hash") String parentBlockHash,
    @JsonProperty("lora_id") Long loraId,
    @JsonProperty("lora_name") String loraName,
    @JsonProperty("first_stored_ms") Long firstStoredMs,
    @JsonProperty("last_stored_ms") Long lastStoredMs,
    @JsonProperty("session_id") String sessionId,
    @JsonProperty("seq") Long seq) {

  /** The record key: {@code source/hash}. */
  public static String key(String source, String hash) {
    return source + "/" + hash;
  }
}
