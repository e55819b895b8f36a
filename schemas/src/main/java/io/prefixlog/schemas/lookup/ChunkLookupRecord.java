package io.prefixlog.schemas.lookup;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/**
 * The chunk hashes of one request's prompt, keyed on {@code chunk.lookups} by the turn it became,
 * {@code session_key/chain/seq} (by {@code request_id} before delta records v3).
 *
 * <p>The first six fields are LMCache's lookup-hash log fields with LMCache's meaning: {@code
 * timestamp} in Unix seconds, {@code chunk_hashes} as {@code 0x}-prefixed hex, full chunks only
 * (the tail, {@code seq_len mod chunk_size}, is an implicit miss). Hashes are prefix-chained: hash
 * i covers chunks 0..i. {@code chunk_unit} states what {@code chunk_size} and {@code seq_len} count
 * ({@code bytes} of the rendered prompt when no tokenizer is used; {@code tokens} in LMCache's own
 * files). {@code body_omitted} marks the hash-only lookup of a request whose body the capture
 * sampling left out: its hashes come from the bridge, keyed {@code session_key/ts/request_id}.
 * {@code upstream} is the raw event's: where the capture proxy forwarded the request.
 *
 * <p>Version 1 (no {@code schema_version}) holds the whole list in {@code chunk_hashes}. Version 2
 * ({@code schema_version} 2) stores a turn at the cost of its new chunks: its first {@code
 * prefix_chunks} hashes are those of the previous turn of the same chain, and {@code tail_hashes}
 * holds the rest; {@code chunk_hashes} is absent. {@link #resolve} gives the whole list of either.
 */
public record ChunkLookupRecord(
    @JsonProperty("timestamp") Double timestamp,
    @JsonProperty("request_id") String requestId,
    @JsonProperty("model_name") String modelName,
    @JsonProperty("chunk_size") Integer chunkSize,
    @JsonProperty("seq_len") Long seqLen,
    @JsonProperty("chunk_hashes") List<String> chunkHashes,
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("hash_algo") String hashAlgo,
    @JsonProperty("chunk_unit") String chunkUnit,
    @JsonProperty("chunked") String chunked,
    @JsonProperty("prompt_tokens") Long promptTokens,
    @JsonProperty("cached_tokens") Long cachedTokens,
    @JsonProperty("body_omitted") String bodyOmitted,
    @JsonProperty("upstream") String upstream,
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("prefix_chunks") Integer prefixChunks,
    @JsonProperty("tail_hashes") List<String> tailHashes) {

  /** The {@code schema_version} of records that refer to the previous turn's hashes. */
  public static final int SCHEMA_VERSION_V2 = 2;

  public ChunkLookupRecord {
    chunkHashes = chunkHashes == null ? null : List.copyOf(chunkHashes);
    tailHashes = tailHashes == null ? null : List.copyOf(tailHashes);
  }

  /** Whether this is a version 2 record ({@code prefix_chunks} and {@code tail_hashes}). */
  @JsonIgnore
  public boolean isV2() {
    return schemaVersion != null && schemaVersion == SCHEMA_VERSION_V2;
  }

  /**
   * Whether the whole list is in this record: a version 1 record, or a version 2 one that shares
   * nothing with an earlier turn.
   */
  @JsonIgnore
  public boolean isWhole() {
    return !isV2() || prefixChunks == null || prefixChunks == 0;
  }

  /**
   * The whole list of hashes.
   *
   * @param previous the resolved list of the previous turn of the chain; only read when this record
   *     refers to it, and then at least {@code prefix_chunks} long
   * @throws IllegalArgumentException when this record refers to hashes {@code previous} does not
   *     have
   */
  public List<String> resolve(List<String> previous) {
    if (!isV2()) {
      return chunkHashes;
    }
    int shared = prefixChunks == null ? 0 : prefixChunks;
    List<String> tail = tailHashes == null ? List.of() : tailHashes;
    if (shared == 0) {
      return tail;
    }
    if (previous == null || previous.size() < shared) {
      throw new IllegalArgumentException(
          "the record shares "
              + shared
              + " hashes with the previous turn, which has "
              + (previous == null ? "no resolved list" : previous.size() + " hashes"));
    }
    List<String> all = new ArrayList<>(shared + tail.size());
    all.addAll(previous.subList(0, shared));
    all.addAll(tail);
    return List.copyOf(all);
  }

  /**
   * The same lookup in version 1's form, with the whole list: what LMCache's lookup-hash log and
   * every earlier reader expect.
   */
  public ChunkLookupRecord asVersion1(List<String> wholeList) {
    return withHashes(wholeList, null, null, null);
  }

  /**
   * The same lookup as a version 2 record.
   *
   * @param prefixChunks leading hashes shared with the previous turn of the chain, not repeated
   * @param tailHashes the hashes after them
   */
  public ChunkLookupRecord asVersion2(int prefixChunks, List<String> tailHashes) {
    return withHashes(null, SCHEMA_VERSION_V2, prefixChunks, tailHashes);
  }

  /** This lookup with other hash fields, every other field as it is. */
  private ChunkLookupRecord withHashes(
      List<String> chunkHashes,
      Integer schemaVersion,
      Integer prefixChunks,
      List<String> tailHashes) {
    return new ChunkLookupRecord(
        timestamp,
        requestId,
        modelName,
        chunkSize,
        seqLen,
        chunkHashes,
        sessionKey,
        hashAlgo,
        chunkUnit,
        chunked,
        promptTokens,
        cachedTokens,
        bodyOmitted,
        upstream,
        schemaVersion,
        prefixChunks,
        tailHashes);
  }
}
