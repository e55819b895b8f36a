package io.prefixlog.analysis.mrc;

/**
 * A pass over chunk-hash lookup requests, fed one request at a time in access order: the one-pass
 * LRU curves ({@link MrcAnalyzer}) and the optimal ones ({@link OptAnalyzer}) take the same
 * requests, so a caller feeds either (or both) the same way.
 */
public interface LookupAnalyzer {
  /**
   * Adds one request without building a {@link LookupRequest}: its chunk keys are {@code
   * chunkKeys[from..to)} (read, never kept). See {@link LookupRequest} for the fields; engine
   * figures may be {@link LookupRequest#UNKNOWN}.
   *
   * @throws IllegalArgumentException if seqLen is less than the full chunks' units, or a figure is
   *     negative
   */
  void accept(
      long timestampMs,
      String model,
      long[] chunkKeys,
      int from,
      int to,
      long chunkWeight,
      long seqLen,
      long promptTokens,
      long cachedTokens);

  /** Adds one request. */
  default void accept(LookupRequest request) {
    accept(
        request.timestampMs(),
        request.model(),
        request.keysNoCopy(),
        0,
        request.chunkCount(),
        request.chunkWeight(),
        request.seqLen(),
        request.promptTokens(),
        request.cachedTokens());
  }
}
