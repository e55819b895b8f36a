package io.prefixlog.schemas.lookup;

import com.fasterxml.jackson.annotation.JsonProperty;
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
    @JsonProperty("upstream") String upstream) {

  public ChunkLookupRecord {
    chunkHashes = chunkHashes == null ? null : List.copyOf(chunkHashes);
  }

  /** The lookup of a request whose body was kept (no {@code body_omitted}). */
  public ChunkLookupRecord(
      Double timestamp,
      String requestId,
      String modelName,
      Integer chunkSize,
      Long seqLen,
      List<String> chunkHashes,
      String sessionKey,
      String hashAlgo,
      String chunkUnit,
      String chunked,
      Long promptTokens,
      Long cachedTokens) {
    this(
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
        null,
        null);
  }

  /** The lookup without {@code upstream} (a request no capture proxy forwarded). */
  public ChunkLookupRecord(
      Double timestamp,
      String requestId,
      String modelName,
      Integer chunkSize,
      Long seqLen,
      List<String> chunkHashes,
      String sessionKey,
      String hashAlgo,
      String chunkUnit,
      String chunked,
      Long promptTokens,
      Long cachedTokens,
      String bodyOmitted) {
    this(
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
        null);
  }
}
