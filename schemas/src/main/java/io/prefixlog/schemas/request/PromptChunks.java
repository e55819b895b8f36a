package io.prefixlog.schemas.request;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The chunk hashes of a request's prompt, computed by the producer of a metadata-only raw event
 * (the bridge, on its publisher thread) so that the stream app can write the request's chunk lookup
 * without its body. The fields mean what the same fields of a chunk lookup record mean ({@code
 * chunk.lookups}): prefix-chained hashes of the full chunks of the rendered prompt, {@code 0x} hex.
 *
 * @param chunkSize units per chunk
 * @param seqLen units of the rendered prompt, the tail that fills no chunk included
 * @param chunkHashes one hash per full chunk
 * @param hashAlgo the hash function ({@code sha256_64} and its successors)
 * @param chunkUnit what {@code chunk_size} and {@code seq_len} count ({@code bytes})
 * @param chunked how the body was rendered before chunking ({@code chat_messages}, {@code raw})
 */
public record PromptChunks(
    @JsonProperty("chunk_size") Integer chunkSize,
    @JsonProperty("seq_len") Long seqLen,
    @JsonProperty("chunk_hashes") List<String> chunkHashes,
    @JsonProperty("hash_algo") String hashAlgo,
    @JsonProperty("chunk_unit") String chunkUnit,
    @JsonProperty("chunked") String chunked) {

  public PromptChunks {
    chunkHashes = chunkHashes == null ? null : List.copyOf(chunkHashes);
  }
}
