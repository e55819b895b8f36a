package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SessionSampleTest {
  @Test
  void shouldTakeAboutTheFractionAndNestSmallerSamplesInLargerOnes() {
    // Given
    SessionSample tenth = new SessionSample(0.1);
    SessionSample half = new SessionSample(0.5);

    // When
    long inTenth = IntStream.range(0, 20_000).filter(i -> tenth.includes("s" + i)).count();
    long inHalf = IntStream.range(0, 20_000).filter(i -> half.includes("s" + i)).count();

    // Then
    assertThat(inTenth).isBetween(1_800L, 2_200L);
    assertThat(inHalf).isBetween(9_600L, 10_400L);
    assertThat(IntStream.range(0, 20_000).filter(i -> tenth.includes("s" + i)))
        .allMatch(i -> half.includes("s" + i));
    assertThat(IntStream.range(0, 20_000)).allMatch(i -> SessionSample.ALL.includes("s" + i));
  }

  @Test
  void shouldDecideFromTheKeyAlone() {
    assertThat(SessionSample.position("3f2a")).isEqualTo(SessionSample.position("3f2a"));
    assertThat(SessionSample.position("3f2a")).isNotEqualTo(SessionSample.position("3f2b"));
    assertThat(SessionSample.position("3f2a")).isGreaterThanOrEqualTo(0).isLessThan(1);
  }
}
