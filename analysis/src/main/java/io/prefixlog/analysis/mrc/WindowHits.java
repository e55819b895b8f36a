package io.prefixlog.analysis.mrc;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Hits at the chosen window capacities over a stretch of requests (one window, or everything up to
 * a window's end), with the engine's own figures for the same requests.
 */
public final class WindowHits {
  private final Sampling sampling;
  private final long[] capacities;
  private final Totals totals;
  private final EngineTokenTotals engine;
  private final long[][] hits; // [semantics][capacity index], over the sampled lookups
  private final long[][] units;

  WindowHits(
      Sampling sampling,
      long[] capacities,
      Totals totals,
      EngineTokenTotals engine,
      long[][] hits,
      long[][] units) {
    this.sampling = sampling;
    this.capacities = capacities;
    this.totals = totals;
    this.engine = engine;
    this.hits = hits;
    this.units = units;
  }

  /** The window capacities, ascending. */
  public List<Long> capacities() {
    return Arrays.stream(capacities).boxed().toList();
  }

  public Totals totals() {
    return totals;
  }

  public EngineTokenTotals engine() {
    return engine;
  }

  /** Chunk lookups that hit at {@code capacity}, one of {@link #capacities()}. */
  public long hits(Semantics semantics, long capacity) {
    return count(Weighting.CHUNKS, semantics, capacity);
  }

  /** Units that hit at {@code capacity}, one of {@link #capacities()}. */
  public long unitHits(Semantics semantics, long capacity) {
    return count(Weighting.UNITS, semantics, capacity);
  }

  public double hitRate(Semantics semantics, Weighting weighting, long capacity) {
    int limit = sampling.distanceLimit(capacity);
    return totals.rate(weighting, sampled(weighting, semantics, capacity), sampling, limit);
  }

  private long count(Weighting weighting, Semantics semantics, long capacity) {
    int limit = sampling.distanceLimit(capacity);
    return totals.count(weighting, sampled(weighting, semantics, capacity), sampling, limit);
  }

  /** The hits among the sampled lookups, before {@link Totals} scales them to all lookups. */
  private long sampled(Weighting weighting, Semantics semantics, long capacity) {
    long[][] counts = weighting == Weighting.CHUNKS ? hits : units;
    return counts[semantics.ordinal()][index(capacity)];
  }

  private int index(long capacity) {
    int i = Arrays.binarySearch(capacities, capacity);
    if (i < 0) {
      throw new IllegalArgumentException(
          "capacity " + capacity + " is not a window capacity " + capacities());
    }
    return i;
  }

  @Override
  public String toString() {
    return "WindowHits[" + totals + ", " + engine + "]";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof WindowHits that
        && sampling.equals(that.sampling)
        && Arrays.equals(capacities, that.capacities)
        && totals.equals(that.totals)
        && engine.equals(that.engine)
        && Arrays.deepEquals(hits, that.hits)
        && Arrays.deepEquals(units, that.units);
  }

  @Override
  public int hashCode() {
    return Objects.hash(totals, engine) * 31 + Arrays.deepHashCode(hits);
  }
}
