package io.prefixlog.benchmarks.harness;

import java.util.Arrays;
import java.util.Collection;
import java.util.function.IntToDoubleFunction;

/**
 * Medians of per-round figures. These machines are shared and noisy, so every benchmark reports the
 * median of its rounds (and ratios of medians, or medians of per-round ratios) rather than means.
 */
public final class Medians {
  private Medians() {}

  /** The median; the mean of the two middle values for an even count; NaN for none. */
  public static double of(double... values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** The median over rounds {@code 0} to {@code rounds - 1} of a figure of each round. */
  public static double over(int rounds, IntToDoubleFunction figure) {
    double[] values = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      values[round] = figure.applyAsDouble(round);
    }
    return of(values);
  }

  /** The median of a collection of figures. */
  public static double of(Collection<? extends Number> values) {
    return of(values.stream().mapToDouble(Number::doubleValue).toArray());
  }
}
