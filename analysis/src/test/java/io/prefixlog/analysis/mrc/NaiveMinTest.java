package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The reference checked against the most literal Belady there is: scan the cache for the max. */
class NaiveMinTest {

  @Test
  void shouldEqualALinearScanBeladyOnRandomSequences() {
    Random random = new Random(17);
    for (int round = 0; round < 200; round++) {
      // Given
      int n = 1 + random.nextInt(60);
      int keySpace = 1 + random.nextInt(12);
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        keys[i] = random.nextInt(keySpace);
      }
      for (int capacity = 0; capacity <= keySpace + 1; capacity++) {
        // When
        NaiveMin min = new NaiveMin(capacity);
        min.accept(keys, 0, n, 1, n);
        min.finish();

        // Then
        assertThat(min.hits(Semantics.PER_CHUNK))
            .as("round %d capacity %d", round, capacity)
            .isEqualTo(linearScanHits(keys, capacity));
      }
    }
  }

  /** Belady by the letter: on a miss with a full cache, scan for the farthest next use. */
  private static long linearScanHits(long[] keys, int capacity) {
    List<Long> cache = new ArrayList<>();
    long hits = 0;
    for (int t = 0; t < keys.length; t++) {
      if (cache.contains(keys[t])) {
        hits++;
        continue;
      }
      if (capacity == 0) {
        continue;
      }
      if (cache.size() == capacity) {
        int victim = 0;
        int farthest = -1;
        for (int j = 0; j < cache.size(); j++) {
          int next = keys.length; // never again
          for (int u = t + 1; u < keys.length; u++) {
            if (keys[u] == cache.get(j)) {
              next = u;
              break;
            }
          }
          if (next > farthest) {
            farthest = next;
            victim = j;
          }
        }
        cache.remove(victim);
      }
      cache.add(keys[t]);
    }
    return hits;
  }
}
