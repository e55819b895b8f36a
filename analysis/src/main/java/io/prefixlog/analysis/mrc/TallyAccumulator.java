package io.prefixlog.analysis.mrc;

import java.util.Arrays;

/**
 * A mutable {@link WindowHits}. Hits are kept per bucket: a lookup at (sampled) distance d lands in
 * the bucket of the smallest window capacity whose limit is ≥ d, so the hits at capacity j are the
 * sum of buckets 0..j, taken once per window rather than once per lookup.
 */
final class TallyAccumulator {
  final int[] limits; // sampled-distance limit of each capacity, ascending
  final long[][] bucketHits; // [semantics][bucket]
  final long[][] bucketUnits;
  long requests;
  long accesses;
  long accessWeight;
  long units;
  long sampledRequests;
  long sampledAccesses;
  long sampledAccessWeight;
  long engineRequests;
  long promptTokens;
  long cachedTokens;

  TallyAccumulator(int[] limits) {
    this.limits = limits;
    this.bucketHits = new long[2][limits.length];
    this.bucketUnits = new long[2][limits.length];
  }

  /** The bucket of a (sampled) distance, or {@code limits.length} when it hits at none. */
  int bucket(int distance) {
    int[] l = limits;
    int j = 0;
    while (j < l.length && l[j] < distance) {
      j++;
    }
    return j;
  }

  void addRequest(
      int chunks, long chunkWeight, long seqLen, int sampled, long prompt, long cached) {
    requests++;
    accesses += chunks;
    accessWeight += chunks * chunkWeight;
    units += seqLen;
    if (sampled > 0) {
      sampledRequests++;
      sampledAccesses += sampled;
      sampledAccessWeight += sampled * chunkWeight;
    }
    if (prompt != LookupRequest.UNKNOWN && cached != LookupRequest.UNKNOWN) {
      engineRequests++;
      promptTokens += prompt;
      cachedTokens += cached;
    }
  }

  void addAll(TallyAccumulator other) {
    for (int s = 0; s < 2; s++) {
      for (int j = 0; j < limits.length; j++) {
        bucketHits[s][j] += other.bucketHits[s][j];
        bucketUnits[s][j] += other.bucketUnits[s][j];
      }
    }
    requests += other.requests;
    accesses += other.accesses;
    accessWeight += other.accessWeight;
    units += other.units;
    sampledRequests += other.sampledRequests;
    sampledAccesses += other.sampledAccesses;
    sampledAccessWeight += other.sampledAccessWeight;
    engineRequests += other.engineRequests;
    promptTokens += other.promptTokens;
    cachedTokens += other.cachedTokens;
  }

  void clear() {
    for (int s = 0; s < 2; s++) {
      Arrays.fill(bucketHits[s], 0);
      Arrays.fill(bucketUnits[s], 0);
    }
    requests = 0;
    accesses = 0;
    accessWeight = 0;
    units = 0;
    sampledRequests = 0;
    sampledAccesses = 0;
    sampledAccessWeight = 0;
    engineRequests = 0;
    promptTokens = 0;
    cachedTokens = 0;
  }

  Totals totals() {
    return new Totals(
        requests,
        accesses,
        accessWeight,
        units,
        sampledRequests,
        sampledAccesses,
        sampledAccessWeight);
  }

  EngineTokenTotals engine() {
    return new EngineTokenTotals(engineRequests, promptTokens, cachedTokens);
  }

  WindowHits snapshot(Sampling sampling, long[] capacities) {
    long[][] hits = new long[2][limits.length];
    long[][] unitHits = new long[2][limits.length];
    for (int s = 0; s < 2; s++) {
      long h = 0;
      long u = 0;
      for (int j = 0; j < limits.length; j++) {
        h += bucketHits[s][j];
        u += bucketUnits[s][j];
        hits[s][j] = h;
        unitHits[s][j] = u;
      }
    }
    return new WindowHits(sampling, capacities, totals(), engine(), hits, unitHits);
  }
}
