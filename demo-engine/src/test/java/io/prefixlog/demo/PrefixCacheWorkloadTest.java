package io.prefixlog.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixCacheWorkloadTest {
  @Test
  void shouldStoreAfterTheCachedPrefixAndEvictDownToTheCapacity() {
    // Given
    PrefixCacheWorkload workload = new PrefixCacheWorkload(4, 64, 300);
    Random random = new Random(7);
    Map<Long, Integer> copies = new HashMap<>();
    long physical = 0;
    long evictions = 0;

    for (int i = 0; i < 500; i++) {
      // When
      PrefixCacheWorkload.Step step = workload.next(random);

      // Then: the stored blocks are the prompt's tail after the hit, chained to the block before
      assertThat(step.stored()).isEqualTo(step.blocks().subList(step.hit(), step.blocks().size()));
      assertThat(step.parentOf(0)).isNull();
      if (step.hit() > 0) {
        assertThat(step.parentOf(step.hit())).isEqualTo(step.blocks().get(step.hit() - 1));
      }
      assertThat(step.evicted()).doesNotContainAnyElementsOf(step.stored());
      for (long hash : step.stored()) {
        copies.merge(hash, 1, Integer::sum);
        physical++;
      }
      for (long hash : step.evicted()) {
        assertThat(copies.merge(hash, -1, Integer::sum)).isGreaterThanOrEqualTo(0);
        copies.remove(hash, 0);
        physical--;
        evictions++;
      }
      assertThat(physical).isLessThanOrEqualTo(300);
      assertThat(workload.resident()).isEqualTo(copies.keySet());
    }
    assertThat(evictions).isPositive();
  }

  @Test
  void shouldGiveTheSameStepsForTheSameSeed() {
    assertThat(steps(11)).isEqualTo(steps(11)).isNotEqualTo(steps(12));
  }

  private static List<PrefixCacheWorkload.Step> steps(long seed) {
    PrefixCacheWorkload workload = new PrefixCacheWorkload(8, 256, 4096);
    Random random = new Random(seed);
    List<PrefixCacheWorkload.Step> steps = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      steps.add(workload.next(random));
    }
    return steps;
  }
}
