package io.prefixlog.tools.analyze;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/** An axis of a {@link LineChart}: a range, how values map onto it, and its ticks. */
abstract class ChartAxis {
  /** A tick: its value, its label, an optional second label line, and whether it is major. */
  record Tick(double value, String label, String secondLabel, boolean major) {}

  private final String title;

  ChartAxis(String title) {
    this.title = title;
  }

  String title() {
    return title;
  }

  /**
   * Where {@code value} lies along the axis, 0 at the start and 1 at the end (may fall outside).
   */
  abstract double fraction(double value);

  abstract List<Tick> ticks();

  /** A logarithmic axis over [min, max] (both &gt; 0), ticks at powers of ten. */
  static ChartAxis log(String title, double min, double max, DoubleFunction<String> secondLabel) {
    return new Log(title, min, max, secondLabel);
  }

  /** A linear percentage axis from 0 to 100 %, for hit rates in [0, 1]. */
  static ChartAxis percent(String title) {
    return new Percent(title);
  }

  /** A time axis over [startMs, endMs] epoch milliseconds, labelled in UTC. */
  static ChartAxis time(String title, long startMs, long endMs) {
    return new Time(title, startMs, endMs);
  }

  private static final class Log extends ChartAxis {
    private final double logMin;
    private final double logMax;
    private final DoubleFunction<String> secondLabel;

    Log(String title, double min, double max, DoubleFunction<String> secondLabel) {
      super(title);
      if (!(min > 0) || !(max > min)) {
        throw new IllegalArgumentException("log axis needs 0 < min < max, got " + min + ", " + max);
      }
      this.logMin = Math.log10(min);
      this.logMax = Math.log10(max);
      this.secondLabel = secondLabel;
    }

    @Override
    double fraction(double value) {
      return (Math.log10(Math.max(value, 1e-300)) - logMin) / (logMax - logMin);
    }

    @Override
    List<Tick> ticks() {
      List<Tick> ticks = new ArrayList<>();
      int first = (int) Math.floor(logMin);
      int last = (int) Math.ceil(logMax);
      double eps = 1e-9;
      for (int e = first; e <= last; e++) {
        for (int m = 1; m <= 9; m++) {
          double v = m * Math.pow(10, e);
          double l = Math.log10(v);
          if (l < logMin - eps || l > logMax + eps) {
            continue;
          }
          boolean major = m == 1;
          ticks.add(
              new Tick(
                  v,
                  major ? Quantities.shortCount(v) : "",
                  major && secondLabel != null ? secondLabel.apply(v) : null,
                  major));
        }
      }
      return ticks;
    }
  }

  private static final class Percent extends ChartAxis {
    Percent(String title) {
      super(title);
    }

    @Override
    double fraction(double value) {
      return value;
    }

    @Override
    List<Tick> ticks() {
      List<Tick> ticks = new ArrayList<>();
      for (int p = 0; p <= 100; p += 10) {
        ticks.add(new Tick(p / 100.0, p + "%", null, true));
      }
      return ticks;
    }
  }

  private static final class Time extends ChartAxis {
    private static final long[] STEPS = {
      100,
      200,
      500,
      1_000,
      2_000,
      5_000,
      10_000,
      15_000,
      30_000,
      60_000,
      120_000,
      300_000,
      600_000,
      900_000,
      1_800_000,
      3_600_000,
      7_200_000,
      10_800_000,
      21_600_000,
      43_200_000,
      86_400_000,
      172_800_000,
      604_800_000
    };

    private final long start;
    private final long end;

    Time(String title, long startMs, long endMs) {
      super(title);
      this.start = startMs;
      this.end = Math.max(endMs, startMs + 1);
    }

    @Override
    double fraction(double value) {
      return (value - start) / (end - start);
    }

    @Override
    List<Tick> ticks() {
      long span = end - start;
      long step = STEPS[STEPS.length - 1];
      for (long s : STEPS) {
        if (span / s <= 8) {
          step = s;
          break;
        }
      }
      DateTimeFormatter format =
          DateTimeFormatter.ofPattern(
                  span > 2 * 86_400_000L
                      ? "MM-dd HH:mm"
                      : step < 1_000 ? "HH:mm:ss.SSS" : step < 60_000 ? "HH:mm:ss" : "HH:mm",
                  Locale.ROOT)
              .withZone(ZoneOffset.UTC);
      List<Tick> ticks = new ArrayList<>();
      for (long t = Math.floorDiv(start + step - 1, step) * step; t <= end; t += step) {
        ticks.add(new Tick(t, format.format(Instant.ofEpochMilli(t)), null, true));
      }
      return ticks;
    }
  }
}
