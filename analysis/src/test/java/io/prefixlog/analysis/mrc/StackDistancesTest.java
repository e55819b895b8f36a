package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StackDistancesTest {

  @Test
  void shouldGiveTheDistancesOfAHandComputedSequence() {
    // Given: a b c a a d b
    StackDistances stack = new StackDistances(64, 0);
    long a = 10;
    long b = 0;
    long c = -3;
    long d = Long.MIN_VALUE;

    // When / Then
    assertThat(stack.access(a)).isEqualTo(StackDistances.COLD);
    assertThat(stack.access(b)).isEqualTo(StackDistances.COLD);
    assertThat(stack.access(c)).isEqualTo(StackDistances.COLD);
    assertThat(stack.access(a)).isEqualTo(3); // b, c since: third from the top
    assertThat(stack.access(a)).isEqualTo(1);
    assertThat(stack.access(d)).isEqualTo(StackDistances.COLD);
    assertThat(stack.access(b)).isEqualTo(4); // c, a, d since
    assertThat(stack.distinct()).isEqualTo(4);
  }

  @Test
  void shouldMatchAListStackAcrossManyRenumberingsAndGrowths() {
    for (int seed = 0; seed < 20; seed++) {
      // Given: a tiny timeline, so it is renumbered every few dozen accesses and grows
      Random random = new Random(seed);
      int keySpace = 1 + random.nextInt(seed < 10 ? 40 : 400);
      StackDistances stack = new StackDistances(1, 0);
      List<Long> lru = new ArrayList<>(); // most recent first

      // When / Then
      for (int i = 0; i < 6_000; i++) {
        long key = random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(keySpace);
        int expected = lru.indexOf(key) + 1;
        if (expected == 0) {
          expected = StackDistances.COLD;
        } else {
          lru.remove(expected - 1);
        }
        lru.add(0, key);
        assertThat(stack.access(key)).as("seed %d access %d", seed, i).isEqualTo(expected);
      }
      assertThat(stack.distinct()).isEqualTo(lru.size());
      assertThat(stack.compactions()).as("seed %d", seed).isGreaterThan(3);
    }
  }

  @Test
  void shouldRenumberWithoutGrowingWhileFewKeysAreLive() {
    // Given: 20 keys on a 64-position timeline
    StackDistances stack = new StackDistances(64, 0);

    // When
    for (int i = 0; i < 10_000; i++) {
      assertThat(stack.access(i % 20)).isEqualTo(i < 20 ? StackDistances.COLD : 20);
    }

    // Then
    assertThat(stack.timelineCapacity()).isEqualTo(64);
    assertThat(stack.compactions()).isEqualTo((10_000 - 64) / 44 + 1);
  }

  @Test
  void shouldCountLongReuseDistancesThroughTheTree() {
    // Given: distances far beyond the popcount scan, on a timeline that grows
    StackDistances stack = new StackDistances(64, 0);
    int keys = 5_000;

    // When / Then: a cyclic sweep has distance = keys at every reuse
    for (int round = 0; round < 4; round++) {
      for (int k = 0; k < keys; k++) {
        assertThat(stack.access(k * 7919L)).isEqualTo(round == 0 ? StackDistances.COLD : keys);
      }
    }
    assertThat(stack.timelineCapacity()).isGreaterThanOrEqualTo(2 * keys);
  }

  @Test
  void shouldCountDistancesAcrossEveryLevelOfATimelineBeyond2To24Positions() {
    // Given: cold keys swept cyclically (K of them), a hot key after every other cold one (H of
    // them). A hot key comes back after 2H cold keys and H - 1 other hot keys: distance 3H. A cold
    // key comes back after K - 1 other cold keys and all H hot keys: distance K + H. The timeline
    // starts tiny, is renumbered as it grows, and grows beyond 2^24 positions, which get used.
    int coldKeys = 3_000_000;
    int hotKeys = 1_000;
    StackDistances stack = new StackDistances(64, 0);
    int wrongHot = 0;
    int wrongCold = 0;
    int highestPosition = 0;

    // When
    for (int step = 0; step < 14_000_000; step++) {
      int cold = stack.access(-1L - step % coldKeys);
      if (cold != (step < coldKeys ? StackDistances.COLD : coldKeys + hotKeys)) {
        wrongCold++;
      }
      if (step % 2 == 0) {
        int hot = stack.access((step / 2) % hotKeys);
        if (hot != (step < 2 * hotKeys ? StackDistances.COLD : 3 * hotKeys)) {
          wrongHot++;
        }
      }
      highestPosition = Math.max(highestPosition, stack.nextPosition());
    }

    // Then
    assertThat(highestPosition).isGreaterThan(1 << 24);
    assertThat(stack.compactions()).isGreaterThan(5);
    assertThat(wrongCold).isZero();
    assertThat(wrongHot).isZero();
    assertThat(stack.distinct()).isEqualTo(coldKeys + hotKeys);
  }
}
