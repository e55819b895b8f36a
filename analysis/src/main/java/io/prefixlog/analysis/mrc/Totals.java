package io.prefixlog.analysis.mrc;

/**
 * What a curve or a window was computed over.
 *
 * @param requests requests (lookup records), empty ones included
 * @param accesses chunk lookups: full chunks of all requests
 * @param accessWeight units in full chunks, Σ chunks × chunk weight
 * @param units Σ seq_len: the denominator of {@link Weighting#UNITS} hit rates (tails are misses)
 * @param sampledRequests requests with at least one sampled chunk (all requests with a chunk when
 *     the analysis is exact)
 * @param sampledAccesses chunk lookups whose key was sampled (all of them when exact)
 * @param sampledAccessWeight units in the sampled chunk lookups
 */
public record Totals(
    long requests,
    long accesses,
    long accessWeight,
    long units,
    long sampledRequests,
    long sampledAccesses,
    long sampledAccessWeight) {

  static final Totals EMPTY = new Totals(0, 0, 0, 0, 0, 0, 0);

  Totals plus(Totals other) {
    return new Totals(
        requests + other.requests,
        accesses + other.accesses,
        accessWeight + other.accessWeight,
        units + other.units,
        sampledRequests + other.sampledRequests,
        sampledAccesses + other.sampledAccesses,
        sampledAccessWeight + other.sampledAccessWeight);
  }

  /**
   * A hit rate from the hits over the sampled lookups at a capacity whose sampled-distance limit is
   * {@code limit}. Exact: hits / accesses, unit hits / Σ seq_len; 0 when there is nothing that
   * could hit.
   *
   * <p>Sampled: SHARDS_adj (Waldspurger et al., FAST'15 §3.3). With fixed-rate sampling the number
   * of sampled lookups differs from rate × lookups, mostly because a few popular keys are in or out
   * of the sample, and those are hits at any capacity that resolves at all. The difference is added
   * to the first histogram bucket (limit ≥ 1) and the rate is taken over the expected number: (hits
   * + rate × N − sampled N) / (rate × N), clamped to [0, 1]; for units the same over units in full
   * chunks, times (units in full chunks / Σ seq_len).
   */
  double rate(Weighting weighting, long sampledHits, Sampling sampling, int limit) {
    boolean chunks = weighting == Weighting.CHUNKS;
    if (sampling.isExact()) {
      long all = chunks ? accesses : units;
      return all == 0 ? 0 : (double) sampledHits / all;
    }
    if (limit < 1) {
      return 0;
    }
    double all = chunks ? accesses : accessWeight;
    double expected = all * sampling.rate();
    if (expected == 0 || (!chunks && units == 0)) {
      return 0;
    }
    double got = chunks ? sampledAccesses : sampledAccessWeight;
    double share = Math.min(1, Math.max(0, (sampledHits + expected - got) / expected));
    return chunks ? share : share * accessWeight / units;
  }

  /** A hit count: exact, or the sampled estimate scaled to all lookups (rounded). */
  long count(Weighting weighting, long sampledHits, Sampling sampling, int limit) {
    if (sampling.isExact()) {
      return sampledHits;
    }
    double all = weighting == Weighting.CHUNKS ? accesses : units;
    return Math.round(rate(weighting, sampledHits, sampling, limit) * all);
  }
}
