package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongIntMapTest {

  @Test
  void shouldStoreEveryLongKeyIncludingZeroAndExtremesThroughResizes() {
    // Given
    LongIntMap map = new LongIntMap(0);
    Map<Long, Integer> reference = new HashMap<>();
    Random random = new Random(7);
    long[] special = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE};

    // When
    for (int i = 0; i < 50_000; i++) {
      long key = i < special.length ? special[i] : random.nextInt(30_000) - 15_000L;
      int value = random.nextInt(Integer.MAX_VALUE - 1);
      int slot = map.find(key);
      if (slot >= 0) {
        map.setValueAt(slot, value);
      } else {
        map.insertAt(~slot, key, value);
      }
      reference.put(key, value);
    }

    // Then
    assertThat(map.size()).isEqualTo(reference.size());
    assertThat(map.slots()).isGreaterThan(reference.size());
    reference.forEach((key, value) -> assertThat(map.get(key)).as("key %d", key).isEqualTo(value));
    assertThat(map.get(123_456_789L)).isEqualTo(-1);
  }

  @Test
  void shouldRemapEveryValueInPlace() {
    // Given
    LongIntMap map = new LongIntMap(4);
    for (long key = -50; key < 50; key++) {
      map.insertAt(~map.find(key), key, (int) (key + 50) * 3);
    }

    // When
    map.remapValues(v -> v / 3);

    // Then
    for (long key = -50; key < 50; key++) {
      assertThat(map.get(key)).isEqualTo((int) key + 50);
    }
  }
}
