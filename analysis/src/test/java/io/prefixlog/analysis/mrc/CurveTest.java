package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CurveTest {

  @Test
  void shouldLogSpaceWholeCapacitiesWithBothEnds() {
    assertThat(Curve.logSpaced(5, 10_000)).containsExactly(1, 10, 100, 1_000, 10_000);
    assertThat(Curve.logSpaced(10, 4)).containsExactly(1, 2, 3, 4);
    assertThat(Curve.logSpaced(3, 1)).containsExactly(1);
  }

  @Test
  void shouldMapCapacitiesToSampledDistancesExactly() {
    Sampling exact = Sampling.none();
    assertThat(exact.distanceLimit(12_345)).isEqualTo(12_345);
    assertThat(exact.capacityFor(12_345)).isEqualTo(12_345);

    Sampling hundredth = new Sampling(Sampling.MODULUS / 128); // rate 1/128
    assertThat(hundredth.rate()).isEqualTo(1.0 / 128);
    assertThat(hundredth.distanceLimit(127)).isZero();
    assertThat(hundredth.distanceLimit(128)).isEqualTo(1);
    assertThat(hundredth.distanceLimit(1_000_000)).isEqualTo(7_812);
    assertThat(hundredth.capacityFor(7_812)).isEqualTo(999_936);
    assertThat(hundredth.distanceLimit(Long.MAX_VALUE)).isEqualTo(StackDistances.COLD - 1);
    assertThat(exact.distanceLimit(Long.MAX_VALUE)).isEqualTo(StackDistances.COLD - 1);
    assertThat(exact.distanceLimit(0)).isZero();
  }

  @Test
  void shouldSampleAboutTheRateOfKeysAlwaysTheSameWay() {
    Sampling tenth = Sampling.atRate(0.1);
    int sampled = 0;
    for (long key = 0; key < 100_000; key++) {
      if (tenth.sampled(key)) {
        sampled++;
        assertThat(tenth.sampled(key)).isTrue();
      }
    }
    assertThat(sampled).isBetween(9_500, 10_500);
  }
}
