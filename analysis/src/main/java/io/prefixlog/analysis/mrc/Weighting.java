package io.prefixlog.analysis.mrc;

/** What a hit rate counts. */
public enum Weighting {
  /** Hit chunk lookups over all chunk lookups. */
  CHUNKS,

  /**
   * Hit units (tokens or bytes: each hit chunk counts its chunk weight) over the requests' total
   * units, Σ seq_len. The tail of a request (its last, partial chunk) is never cached, so it is
   * always a miss: this is LMCache's token hit rate.
   */
  UNITS
}
