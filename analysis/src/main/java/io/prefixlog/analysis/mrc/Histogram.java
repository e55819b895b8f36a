package io.prefixlog.analysis.mrc;

import java.util.Arrays;

/**
 * Hits by stack distance while the pass runs: {@code counts[d]} chunk lookups, and their units, at
 * distance d. Dense, indexed by distance. While every request of the cache has had the same chunk
 * weight (the usual case: one chunk size) the units are {@code counts × weight} and no second array
 * is kept; the first request with another weight materialises it.
 */
final class Histogram {
  private static final long UNSET = -1;

  long[] counts = new long[64];
  long[] units; // null while every weight was uniformWeight
  private long uniformWeight = UNSET;

  /** Declares the chunk weight of the next adds. */
  void useWeight(long weight) {
    if (units != null) {
      return;
    }
    if (uniformWeight == UNSET) {
      uniformWeight = weight;
    } else if (weight != uniformWeight) {
      long[] u = new long[counts.length];
      for (int d = 0; d < u.length; d++) {
        u[d] = counts[d] * uniformWeight;
      }
      units = u;
    }
  }

  /** Makes every distance below {@code size} addressable. */
  void ensure(int size) {
    if (size > counts.length) {
      int grown = Math.max(size, (int) Math.min(Integer.MAX_VALUE - 8, counts.length * 3L / 2));
      counts = Arrays.copyOf(counts, grown);
      if (units != null) {
        units = Arrays.copyOf(units, grown);
      }
    }
  }

  long unitsAt(int distance) {
    return units != null ? units[distance] : counts[distance] * uniformWeight;
  }
}
