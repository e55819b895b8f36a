package io.prefixlog.benchmarks.harness;

import io.prefixlog.tools.cli.UsageException;

/**
 * Upper bounds for the benchmarks' options. The command lines themselves are read like every {@code
 * bin/prefixlog} command's, with {@link io.prefixlog.tools.cli.CommandLine#invoke}: declared
 * options, {@code --help} generated from them, one error form ({@code Name: message}, exit 2);
 * {@code CommandLine} has lower bounds only.
 */
public final class BenchmarkCli {
  private BenchmarkCli() {}

  /** {@code value} when it is at most {@code max}; else a usage error naming the option. */
  public static long atMost(String option, long value, long max) throws UsageException {
    if (value > max) {
      throw new UsageException("--" + option + " must be at most " + max + ", got " + value);
    }
    return value;
  }

  /** {@code value} when it is at most {@code max}; else a usage error naming the option. */
  public static double atMost(String option, double value, double max) throws UsageException {
    if (value > max) {
      throw new UsageException("--" + option + " must be at most " + max + ", got " + value);
    }
    return value;
  }
}
