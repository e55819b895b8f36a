package io.prefixlog.schemas.kv;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One engine KV-cache event, metadata only: token ids are never kept, only their count.
 *
 * <p>{@code type} is the engine's tag ({@code BlockStored}, {@code BlockRemoved}, {@code
 * AllBlocksCleared}); any other tag is passed through with whatever known fields it had. Block
 * hashes are fixed-width lower-case hex: 16 digits for 64-bit integer hashes (unsigned), twice the
 * byte length for byte-string hashes.
 */
public record KvEvent(
    @JsonProperty("type") String type,
    @JsonProperty("block_hashes") List<String> blockHashes,
    @JsonProperty("parent_block_hash") String parentBlockHash,
    @JsonProperty("token_count") Integer tokenCount,
    @JsonProperty("block_size") Integer blockSize,
    @JsonProperty("lora_id") Long loraId,
    @JsonProperty("lora_name") String loraName,
    @JsonProperty("medium") String medium,
    @JsonProperty("group_idx") Integer groupIdx,
    @JsonProperty("kv_cache_spec_kind") String kvCacheSpecKind,
    @JsonProperty("kv_cache_spec_sliding_window") Integer kvCacheSpecSlidingWindow,
    @JsonProperty("locality") String locality,
    @JsonProperty("session_id") String sessionId,
    @JsonProperty("extra_keys") JsonNode extraKeys) {

  public static final String BLOCK_STORED = "BlockStored";
  public static final String BLOCK_REMOVED = "BlockRemoved";
  public static final String ALL_BLOCKS_CLEARED = "AllBlocksCleared";

  public KvEvent {
    blockHashes = blockHashes == null ? null : List.copyOf(blockHashes);
    // An explicit JSON null reads as a NullNode; absent must stay absent when written back.
    extraKeys = extraKeys == null || extraKeys.isNull() ? null : extraKeys;
  }
}
