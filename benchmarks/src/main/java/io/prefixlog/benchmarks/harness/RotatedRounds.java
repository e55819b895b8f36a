package io.prefixlog.benchmarks.harness;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToLongFunction;

/**
 * Variants of one piece of work, each timed over the same items in rounds whose order rotates, the
 * first variant the reference: prints each one's median time per item and the median of its
 * per-round ratios to the reference. A round's variants run back to back, so on a shared machine
 * the ratio within a round holds better under changing load than the ratio of the medians.
 */
public final class RotatedRounds {
  /**
   * One variant.
   *
   * @param work does the work for the item of this index and returns anything derived from it,
   *     summed into a checksum so that the JIT cannot drop the work
   */
  public record Variant(String name, IntToLongFunction work) {}

  /**
   * How many rounds: {@code warmup} unreported, then {@code rounds} measured ones.
   *
   * @see #OPTIONS
   */
  public record Rounds(int rounds, int warmup) {
    /** {@code --rounds} and {@code --warmup}, as {@link #OPTIONS} declares them. */
    public static Rounds of(CommandLine line) throws UsageException {
      return new Rounds(
          (int) Benchmark.atMost("rounds", line.longValue("rounds", 15, 1), 1_000),
          (int) Benchmark.atMost("warmup", line.longValue("warmup", 5, 0), 1_000));
    }
  }

  /** The options {@link Rounds#of} reads. */
  public static final List<Option> OPTIONS =
      List.of(
          Option.value("rounds", "N", "15", "Measured rounds (the median is reported)."),
          Option.value("warmup", "N", "5", "Rounds run first and not reported."));

  private RotatedRounds() {}

  /** Runs the warm-up rounds unreported, then the measured ones, and prints. */
  public static void run(
      PrintStream out, String unit, List<Variant> variants, int items, Rounds counts) {
    int rounds = counts.rounds();
    int warmup = counts.warmup();
    List<List<Double>> nsPerItem = new ArrayList<>();
    for (int v = 0; v < variants.size(); v++) {
      nsPerItem.add(new ArrayList<>());
    }
    long sink = 0;
    for (int round = 0; round < warmup + rounds; round++) {
      for (int i = 0; i < variants.size(); i++) {
        int v = (round + i) % variants.size();
        IntToLongFunction work = variants.get(v).work();
        long start = System.nanoTime();
        for (int item = 0; item < items; item++) {
          sink += work.applyAsLong(item);
        }
        double ns = (System.nanoTime() - start) / (double) items;
        if (round >= warmup) {
          nsPerItem.get(v).add(ns);
        }
      }
    }
    out.printf(
        Locale.ROOT,
        "per %s, median of %d rounds (%d warm-up); against the reference: median of the rounds'"
            + " ratios:%n",
        unit,
        rounds,
        warmup);
    for (int v = 0; v < variants.size(); v++) {
      List<Double> ratios = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        ratios.add(nsPerItem.get(v).get(round) / nsPerItem.get(0).get(round));
      }
      out.printf(
          Locale.ROOT,
          "  %-56s %10.1f us  %6.3fx the reference  (rounds %.1f to %.1f us)%n",
          variants.get(v).name(),
          Medians.of(nsPerItem.get(v)) / 1000,
          Medians.of(ratios),
          nsPerItem.get(v).stream().mapToDouble(d -> d).min().orElse(0) / 1000,
          nsPerItem.get(v).stream().mapToDouble(d -> d).max().orElse(0) / 1000);
    }
    out.println("(checksum " + sink + ")");
  }
}
