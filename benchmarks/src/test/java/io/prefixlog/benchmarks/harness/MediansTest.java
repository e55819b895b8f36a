package io.prefixlog.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MediansTest {
  @Test
  void shouldTakeTheMiddleOfAnOddCountAndTheMeanOfTheTwoMiddlesOfAnEvenOne() {
    assertThat(Medians.of(9, 1, 5)).isEqualTo(5);
    assertThat(Medians.of(4, 1, 3, 2)).isEqualTo(2.5);
    assertThat(Medians.of(List.of(7L, 3L, 100L))).isEqualTo(7);
    assertThat(Medians.of()).isNaN();
  }

  @Test
  void shouldLeaveTheCallersArrayInItsOrder() {
    // Given
    double[] rounds = {3, 1, 2};

    // When
    Medians.of(rounds);

    // Then
    assertThat(rounds).containsExactly(3, 1, 2);
  }
}
