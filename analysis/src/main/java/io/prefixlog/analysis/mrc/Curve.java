package io.prefixlog.analysis.mrc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The LRU hit rate at every cache capacity, from one pass: hit counts at capacity C are cumulative
 * sums of the stack-distance histograms up to C, so any capacity costs a binary search. Capacity is
 * in chunks (per model; see {@link MrcAnalyzer} for the overall curve); a caller with a byte budget
 * divides it by the KV bytes of one chunk.
 *
 * <p>When {@link #sampling()} is not exact, counts and rates are SHARDS estimates (see {@link
 * Sampling}); {@link #totals()} still counts every request and lookup exactly.
 */
public final class Curve {
  private final Sampling sampling;
  private final Totals totals;
  private final long distinctSampled;
  private final HitCdf perChunk;
  private final HitCdf prefix;

  Curve(Sampling sampling, Totals totals, long distinctSampled, HitCdf perChunk, HitCdf prefix) {
    this.sampling = sampling;
    this.totals = totals;
    this.distinctSampled = distinctSampled;
    this.perChunk = perChunk;
    this.prefix = prefix;
  }

  static Curve sum(Sampling sampling, List<Curve> parts) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    Totals totals = Totals.EMPTY;
    long distinct = 0;
    List<HitCdf> perChunk = new ArrayList<>();
    List<HitCdf> prefix = new ArrayList<>();
    for (Curve part : parts) {
      totals = totals.plus(part.totals);
      distinct += part.distinctSampled;
      perChunk.add(part.perChunk);
      prefix.add(part.prefix);
    }
    return new Curve(sampling, totals, distinct, HitCdf.sum(perChunk), HitCdf.sum(prefix));
  }

  public Sampling sampling() {
    return sampling;
  }

  public Totals totals() {
    return totals;
  }

  /**
   * Distinct chunks: the capacity that holds everything ever looked up (estimated from the sampled
   * keys when sampling).
   */
  public long workingSet() {
    return sampling.isExact() ? distinctSampled : Math.round(distinctSampled / sampling.rate());
  }

  /** Chunk lookups that hit at {@code capacity} (an estimate when sampling). */
  public long hits(Semantics semantics, long capacity) {
    int limit = sampling.distanceLimit(capacity);
    return totals.count(Weighting.CHUNKS, cdf(semantics).hits(limit), sampling, limit);
  }

  /** Units (tokens or bytes) that hit at {@code capacity} (an estimate when sampling). */
  public long unitHits(Semantics semantics, long capacity) {
    int limit = sampling.distanceLimit(capacity);
    return totals.count(Weighting.UNITS, cdf(semantics).units(limit), sampling, limit);
  }

  public double hitRate(Semantics semantics, Weighting weighting, long capacity) {
    int limit = sampling.distanceLimit(capacity);
    HitCdf cdf = cdf(semantics);
    long hits = weighting == Weighting.CHUNKS ? cdf.hits(limit) : cdf.units(limit);
    return totals.rate(weighting, hits, sampling, limit);
  }

  /** The prefix-cache token (unit) hit rate, LMCache's metric. */
  public double hitRate(long capacity) {
    return hitRate(Semantics.PREFIX, Weighting.UNITS, capacity);
  }

  /** The hit rate of an unbounded cache. */
  public double maxHitRate(Semantics semantics, Weighting weighting) {
    return hitRate(semantics, weighting, Long.MAX_VALUE);
  }

  /**
   * The smallest capacity at which every lookup that can ever hit does: above it nothing more hits.
   * Exactly the largest finite stack distance (the largest running maximum for {@link
   * Semantics#PREFIX}); 0 when nothing hits at all.
   */
  public long saturationCapacity(Semantics semantics) {
    return sampling.capacityFor(cdf(semantics).maxDistance());
  }

  /** The rates at one capacity. */
  public CurvePoint at(long capacity) {
    return new CurvePoint(
        capacity,
        hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, capacity),
        hitRate(Semantics.PER_CHUNK, Weighting.UNITS, capacity),
        hitRate(Semantics.PREFIX, Weighting.CHUNKS, capacity),
        hitRate(Semantics.PREFIX, Weighting.UNITS, capacity));
  }

  /** The rates at the given capacities, in that order. */
  public List<CurvePoint> points(long... capacities) {
    List<CurvePoint> points = new ArrayList<>(capacities.length);
    for (long capacity : capacities) {
      points.add(at(capacity));
    }
    return points;
  }

  /**
   * The rates at up to {@code k} capacities log-spaced from 1 to {@link #saturationCapacity}
   * ({@link Semantics#PER_CHUNK}, the larger of the two), both ends included, rounded to whole
   * chunks and without repeats.
   */
  public List<CurvePoint> points(int k) {
    return points(logSpaced(k, Math.max(1, saturationCapacity(Semantics.PER_CHUNK))));
  }

  /** Up to {@code k} whole numbers log-spaced from 1 to {@code max}, both included, ascending. */
  public static long[] logSpaced(int k, long max) {
    if (k < 2) {
      throw new IllegalArgumentException("k must be >= 2, got " + k);
    }
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, got " + max);
    }
    long[] capacities = new long[k];
    int n = 0;
    double logMax = Math.log(max);
    for (int i = 0; i < k; i++) {
      long c = i == k - 1 ? max : Math.max(1, Math.round(Math.exp(logMax * i / (k - 1))));
      if (n == 0 || c > capacities[n - 1]) {
        capacities[n++] = c;
      }
    }
    return Arrays.copyOf(capacities, n);
  }

  private HitCdf cdf(Semantics semantics) {
    return Objects.requireNonNull(semantics, "semantics") == Semantics.PER_CHUNK
        ? perChunk
        : prefix;
  }

  @Override
  public String toString() {
    return "Curve[" + totals + ", workingSet=" + workingSet() + ", " + sampling + "]";
  }
}
