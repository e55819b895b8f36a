package io.prefixlog.analysis.mrc;

import java.util.Arrays;
import java.util.List;

/**
 * Cumulative hits by (sampled) stack distance, sparse: only distances that occurred. The hits at
 * capacity C are the entry of the largest distance ≤ C, found by binary search.
 */
final class HitCdf {
  static final HitCdf EMPTY = new HitCdf(new int[0], new long[0], new long[0]);

  private final int[] distances; // ascending
  private final long[] hits; // cumulative chunk lookups at distance ≤ distances[i]
  private final long[] units; // cumulative units

  private HitCdf(int[] distances, long[] hits, long[] units) {
    this.distances = distances;
    this.hits = hits;
    this.units = units;
  }

  static HitCdf of(Histogram histogram) {
    long[] counts = histogram.counts;
    int n = 0;
    for (int d = 1; d < counts.length; d++) {
      if (counts[d] != 0) {
        n++;
      }
    }
    int[] distances = new int[n];
    long[] hits = new long[n];
    long[] units = new long[n];
    long h = 0;
    long u = 0;
    int i = 0;
    for (int d = 1; d < counts.length; d++) {
      if (counts[d] != 0) {
        h += counts[d];
        u += histogram.unitsAt(d);
        distances[i] = d;
        hits[i] = h;
        units[i] = u;
        i++;
      }
    }
    return new HitCdf(distances, hits, units);
  }

  /** The sum of several caches' hits at each capacity: a k-way merge over their distances. */
  static HitCdf sum(List<HitCdf> parts) {
    int k = parts.size();
    if (k == 1) {
      return parts.get(0);
    }
    int total = 0;
    for (HitCdf part : parts) {
      total += part.distances.length;
    }
    int[] distances = new int[total];
    long[] hits = new long[total];
    long[] units = new long[total];
    int[] next = new int[k];
    int n = 0;
    while (true) {
      int d = Integer.MAX_VALUE;
      for (int p = 0; p < k; p++) {
        HitCdf part = parts.get(p);
        if (next[p] < part.distances.length) {
          d = Math.min(d, part.distances[next[p]]);
        }
      }
      if (d == Integer.MAX_VALUE) {
        break;
      }
      long h = 0;
      long u = 0;
      for (int p = 0; p < k; p++) {
        HitCdf part = parts.get(p);
        if (next[p] < part.distances.length && part.distances[next[p]] == d) {
          next[p]++;
        }
        if (next[p] > 0) {
          h += part.hits[next[p] - 1];
          u += part.units[next[p] - 1];
        }
      }
      distances[n] = d;
      hits[n] = h;
      units[n] = u;
      n++;
    }
    return new HitCdf(Arrays.copyOf(distances, n), Arrays.copyOf(hits, n), Arrays.copyOf(units, n));
  }

  long hits(int limit) {
    int i = indexAtOrBelow(limit);
    return i < 0 ? 0 : hits[i];
  }

  long units(int limit) {
    int i = indexAtOrBelow(limit);
    return i < 0 ? 0 : units[i];
  }

  /** The largest distance that occurred, 0 if none. */
  int maxDistance() {
    return distances.length == 0 ? 0 : distances[distances.length - 1];
  }

  private int indexAtOrBelow(int limit) {
    int i = Arrays.binarySearch(distances, limit);
    return i >= 0 ? i : -i - 2;
  }
}
