package io.prefixlog.analysis.mrc;

/**
 * The counts of a reference cache ({@link NaiveLru}, {@link NaiveMin}): each simulates its own
 * eviction, but both score the lookups the same way, so that they stay comparable with each other
 * and with the analyzers they check. Chunk i is a {@link Semantics#PREFIX} hit only while chunks
 * 0..i−1 of its request all hit.
 */
final class NaiveHits {
  private long accesses;
  private long units;
  private long perChunkHits;
  private long perChunkUnitHits;
  private long prefixHits;
  private long prefixUnitHits;
  private boolean inLeadingRun;

  /** The capacity a reference cache was given, checked. */
  static long checkCapacity(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
    }
    return capacity;
  }

  /** Starts a request of {@code seqLen} units: its first chunk may begin a leading run again. */
  void startRequest(long seqLen) {
    units += seqLen;
    inLeadingRun = true;
  }

  /**
   * One chunk lookup of the current request.
   *
   * @return whether it extended the request's leading run of hits
   */
  boolean access(boolean hit, long chunkWeight) {
    accesses++;
    if (!hit) {
      inLeadingRun = false;
      return false;
    }
    perChunkHits++;
    perChunkUnitHits += chunkWeight;
    if (inLeadingRun) {
      prefixHits++;
      prefixUnitHits += chunkWeight;
    }
    return inLeadingRun;
  }

  long accesses() {
    return accesses;
  }

  /** Σ seq_len. */
  long units() {
    return units;
  }

  long hits(Semantics semantics) {
    return semantics == Semantics.PER_CHUNK ? perChunkHits : prefixHits;
  }

  long unitHits(Semantics semantics) {
    return semantics == Semantics.PER_CHUNK ? perChunkUnitHits : prefixUnitHits;
  }

  double hitRate(Semantics semantics, Weighting weighting) {
    if (weighting == Weighting.CHUNKS) {
      return accesses == 0 ? 0 : (double) hits(semantics) / accesses;
    }
    return units == 0 ? 0 : (double) unitHits(semantics) / units;
  }
}
