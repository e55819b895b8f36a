package io.prefixlog.analysis.mrc;

/**
 * SHARDS spatial sampling (Waldspurger et al., FAST'15), fixed rate: a chunk key is tracked iff
 * {@code hash(key) mod 2^24 < threshold}, so the sampling rate is {@code threshold / 2^24} and the
 * same key is always in or out. Stack distances are computed among the sampled keys only and scaled
 * by 1/rate: capacity C corresponds to a sampled distance ≤ ⌊C × rate⌋. Hit rates are ratio
 * estimates over the sampled lookups; at rate 1 everything is tracked and the result is exact.
 *
 * @param threshold sampled keys per {@link #MODULUS}, 1..{@link #MODULUS}
 */
public record Sampling(long threshold) {
  /** The hash space of the sampling decision. */
  public static final long MODULUS = 1L << 24;

  private static final Sampling NONE = new Sampling(MODULUS);

  public Sampling {
    if (threshold < 1 || threshold > MODULUS) {
      throw new IllegalArgumentException(
          "threshold must be in [1, " + MODULUS + "], got " + threshold);
    }
  }

  /** Every key tracked: the exact analysis. */
  public static Sampling none() {
    return NONE;
  }

  /** The rate rounded to the nearest multiple of 2^-24 (at least 2^-24). */
  public static Sampling atRate(double rate) {
    if (!(rate > 0 && rate <= 1)) {
      throw new IllegalArgumentException("sampling rate must be in (0, 1], got " + rate);
    }
    return new Sampling(Math.max(1, Math.min(MODULUS, Math.round(rate * MODULUS))));
  }

  /** The effective sampling rate, {@code threshold / 2^24}. */
  public double rate() {
    return (double) threshold / MODULUS;
  }

  public boolean isExact() {
    return threshold == MODULUS;
  }

  /**
   * Whether {@code key} is tracked: the top 24 bits of one xor-shift-multiply step (splitmix64's
   * first round), cheap enough to run on every lookup; high and low key bits both reach them. A
   * different hash from {@link LongIntMap}'s slots, so sampled keys do not crowd one part of the
   * map.
   */
  boolean sampled(long key) {
    return ((key ^ (key >>> 29)) * 0xBF58476D1CE4E5B9L) >>> 40 < threshold;
  }

  /**
   * The largest sampled distance that is a hit at {@code capacity}: ⌊capacity × rate⌋, exactly, and
   * capped below {@link StackDistances#COLD}.
   */
  int distanceLimit(long capacity) {
    if (capacity <= 0) {
      return 0;
    }
    if ((capacity >>> 24) > Long.MAX_VALUE / MODULUS) {
      return StackDistances.COLD - 1;
    }
    long limit = (capacity >>> 24) * threshold + (((capacity & (MODULUS - 1)) * threshold) >>> 24);
    return (int) Math.min(limit, StackDistances.COLD - 1L);
  }

  /** The smallest capacity whose {@link #distanceLimit} reaches {@code distance}. */
  long capacityFor(int distance) {
    if (distance <= 0) {
      return 0;
    }
    // ceil(distance × 2^24 / threshold)
    return ((long) distance * MODULUS + threshold - 1) / threshold;
  }
}
