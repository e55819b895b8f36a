package io.prefixlog.core.chunk;

import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.util.List;
import java.util.Objects;

/**
 * Resolves {@code chunk.lookups} records of either version into their whole hash lists, in the
 * order of their partition: {@link LookupChains} over the records' hex strings, which it keeps
 * exactly, so that {@link ChunkLookupRecord#asVersion1} of a resolved record is byte for byte the
 * record version 1 wrote.
 *
 * <p>Not thread-safe: one reader feeds it.
 */
public final class ChunkLookupResolver {
  private final LookupChains<List<String>> chains;

  /**
   * @param capacityBytes the bound on the chains' lists kept (see {@link LookupChains})
   */
  public ChunkLookupResolver(long capacityBytes) {
    this.chains = new LookupChains<>(LookupChains.HEX, capacityBytes);
  }

  /**
   * Resolves one record read under {@code key}.
   *
   * @param key the record key ({@code session_key/chain/seq} for a turn), or null when the input
   *     has none
   * @param record the record; a tombstone goes to {@link #tombstone}
   * @throws IllegalArgumentException when the record lists no hashes (no {@code chunk_hashes} in
   *     version 1, no {@code tail_hashes} in version 2)
   */
  public LookupChains.Outcome<List<String>> resolve(String key, ChunkLookupRecord record) {
    Objects.requireNonNull(record, "record");
    int prefix = record.isWhole() ? 0 : record.prefixChunks();
    List<String> listed = record.isV2() ? record.tailHashes() : record.chunkHashes();
    if (listed == null) {
      throw new IllegalArgumentException(
          "the record has no " + (record.isV2() ? "tail_hashes" : "chunk_hashes"));
    }
    return chains.accept(key, record.bodyOmitted() == null, prefix, listed);
  }

  /** A tombstone under {@code key}: its chain is forgotten. */
  public void tombstone(String key) {
    chains.tombstone(key);
  }

  public LookupChains.Stats stats() {
    return chains.stats();
  }
}
