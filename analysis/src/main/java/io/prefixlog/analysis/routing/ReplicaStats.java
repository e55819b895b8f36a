package io.prefixlog.analysis.routing;

/**
 * What one replica served.
 *
 * @param requests requests routed to it
 * @param chunkLookups full chunks of those requests
 * @param prefixHits chunks in each request's leading run of cached chunks (prefix-cache hits)
 * @param units Σ seq_len of those requests (tokens or bytes), partial last chunks included
 * @param unitHits Σ prefix hits × chunk size
 */
public record ReplicaStats(
    long requests, long chunkLookups, long prefixHits, long units, long unitHits) {

  /** Prefix hit chunks / chunk lookups; 0 without lookups. */
  public double chunkHitRate() {
    return chunkLookups == 0 ? 0 : (double) prefixHits / chunkLookups;
  }

  /** Prefix hit units / units (the partial last chunk always misses); 0 without units. */
  public double unitHitRate() {
    return units == 0 ? 0 : (double) unitHits / units;
  }

  ReplicaStats plus(ReplicaStats other) {
    return new ReplicaStats(
        requests + other.requests,
        chunkLookups + other.chunkLookups,
        prefixHits + other.prefixHits,
        units + other.units,
        unitHits + other.unitHits);
  }
}
