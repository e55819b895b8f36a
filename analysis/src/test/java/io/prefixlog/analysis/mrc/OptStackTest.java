package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OptStackTest {
  private static final int COLD = StackDistances.COLD;

  @Test
  void shouldGiveTheOptDistancesOfBeladysReferenceString() {
    // Given: 1 2 3 4 1 2 5 1 2 3 4 5 (MIN: 7 faults with 3 frames, 6 with 4)
    int[] ids = {0, 1, 2, 3, 0, 1, 4, 0, 1, 2, 3, 4};

    // When
    int[] distances = OptStack.distances(ids, ids.length, 5);

    // Then
    assertThat(distances).containsExactly(COLD, COLD, COLD, COLD, 2, 3, COLD, 2, 3, 4, 5, 2);
  }

  @Test
  void shouldGiveOneToTheKeyJustAccessedAndKeepItsMarkers() {
    // Given: a b a a c b a: the repeated a is at distance 1 (its markers move with it); with two
    // slots c evicts a (next used after b), so the last a needs three
    int[] ids = {0, 1, 0, 0, 2, 1, 0};

    // When
    int[] distances = OptStack.distances(ids, ids.length, 3);

    // Then
    assertThat(distances)
        .containsExactly(COLD, COLD, 2, 1, COLD, 2, 3)
        .containsExactly(MattsonOptStack.distances(ids, ids.length, 3));
  }

  @Test
  void shouldGiveMattsonsOptDistanceForEveryAccessOfManyRandomTraces() {
    Random random = new Random(17);
    for (int trace = 0; trace < 4000; trace++) {
      // Given: short traces over few keys (many ties in next use among keys never used again),
      // skewed ones, and long ones that fill the timeline many times over (compaction)
      int keys = 1 + random.nextInt(trace < 3000 ? 10 : 200);
      int length = trace < 3000 ? random.nextInt(40) : 2_000 + random.nextInt(3_000);
      int[] ids = new int[length];
      boolean skewed = random.nextBoolean();
      for (int i = 0; i < length; i++) {
        ids[i] =
            skewed
                ? (int) Math.min(keys - 1, Math.floor(Math.pow(random.nextDouble(), 3) * keys))
                : random.nextInt(keys);
      }
      int distinct = Dense.renumber(ids);

      // When
      int[] fast = OptStack.distances(ids, length, distinct);

      // Then
      assertThat(fast)
          .as("trace %d", trace)
          .containsExactly(MattsonOptStack.distances(ids, length, distinct));
    }
  }

  /** Renumbers ids densely in order of first use, as {@link OptAnalyzer} does. */
  private static final class Dense {
    static int renumber(int[] ids) {
      int[] map = new int[Arrays.stream(ids).max().orElse(0) + 1];
      Arrays.fill(map, -1);
      int distinct = 0;
      for (int i = 0; i < ids.length; i++) {
        if (map[ids[i]] < 0) {
          map[ids[i]] = distinct++;
        }
        ids[i] = map[ids[i]];
      }
      return distinct;
    }
  }
}
