package io.prefixlog.analysis.mrc;

/** When a chunk lookup counts as a hit in an LRU cache of capacity C. */
public enum Semantics {
  /** Every chunk on its own: a hit iff its stack distance ≤ C. */
  PER_CHUNK,

  /**
   * Prefix caching (vLLM, LMCache): a request hits only its leading run of cached chunks. Chunk i
   * hits iff chunks 0..i all have stack distance ≤ C, i.e. iff the running maximum of the request's
   * distances up to i is ≤ C.
   */
  PREFIX
}
