package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NaiveLruTest {

  @Test
  void shouldEvictTheLeastRecentlyUsedAndCountTheLeadingRun() {
    // Given: capacity 2
    NaiveLru lru = new NaiveLru(2);

    // When / Then
    assertThat(lru.accept(new long[] {1, 2}, 0, 2, 10, 25)).isZero(); // [2, 1]
    assertThat(lru.accept(new long[] {1, 3}, 0, 2, 10, 20)).isEqualTo(1); // 1 hit; 3 evicts 2
    assertThat(lru.accept(new long[] {2, 1}, 0, 2, 10, 20)).isZero(); // 2 misses, evicts 3; 1 hits
    assertThat(lru.accept(new long[] {3, 1, 2}, 0, 3, 10, 30)).isZero(); // 3 evicts 1: all miss

    assertThat(lru.requests()).isEqualTo(4);
    assertThat(lru.accesses()).isEqualTo(9);
    assertThat(lru.units()).isEqualTo(95);
    assertThat(lru.hits(Semantics.PER_CHUNK)).isEqualTo(2);
    assertThat(lru.hits(Semantics.PREFIX)).isEqualTo(1);
    assertThat(lru.unitHits(Semantics.PER_CHUNK)).isEqualTo(20);
    assertThat(lru.hitRate(Semantics.PREFIX, Weighting.UNITS)).isEqualTo(10.0 / 95);
  }

  @Test
  void shouldHoldNothingAtCapacityZero() {
    NaiveLru lru = new NaiveLru(0);
    lru.accept(new long[] {1, 1, 1}, 0, 3, 1, 3);
    assertThat(lru.hits(Semantics.PER_CHUNK)).isZero();
  }
}
