package io.prefixlog.analysis.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RoutingChunkLruTest {

  @Test
  void shouldAgreeWithAnAccessOrderedLinkedHashMapOnEveryAccess() {
    for (int capacity : new int[] {0, 1, 2, 3, 7, 31, 64, 200}) {
      // Given: few distinct keys, many of them sharing home slots (multiples of a power of two)
      ChunkLru lru = new ChunkLru(capacity);
      Map<Long, Boolean> reference =
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
              return size() > capacity;
            }
          };
      Random random = new Random(capacity);
      for (int i = 0; i < 20_000; i++) {
        long key = random.nextBoolean() ? random.nextInt(300) : (long) random.nextInt(40) << 40;

        // When
        boolean probe = lru.contains(key);
        boolean hit = lru.access(key);
        boolean expected = reference.get(key) != null;
        if (!expected) {
          reference.put(key, Boolean.TRUE);
        }

        // Then
        assertThat(probe).as("capacity %d access %d", capacity, i).isEqualTo(expected);
        assertThat(hit).as("capacity %d access %d", capacity, i).isEqualTo(expected);
        assertThat(lru.size()).isEqualTo(reference.size());
      }
      for (long key : reference.keySet()) {
        assertThat(lru.contains(key)).isTrue();
      }
    }
  }

  @Test
  void shouldCountTheLeadingRunWithoutChangingTheOrder() {
    // Given: capacity 2 holding 1 then 2 (2 most recent)
    ChunkLru lru = new ChunkLru(2);
    lru.access(new long[] {1, 2}, 0, 2);

    // When: probing 1 must not make it recent
    assertThat(lru.leadingRun(new long[] {1, 2, 3}, 0, 3)).isEqualTo(2);
    lru.access(3);

    // Then: 1 was the least recent and went
    assertThat(lru.contains(1)).isFalse();
    assertThat(lru.leadingRun(new long[] {2, 3}, 0, 2)).isEqualTo(2);
  }
}
