package io.prefixlog.tools.analyze;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The quantities of {@code analyze}'s command line and report: cache capacities (chunks or bytes),
 * byte sizes in binary units (KV caches are sized in GiB), durations, percentages.
 */
final class Quantities {
  private static final Pattern AMOUNT =
      Pattern.compile("\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)\\s*");
  private static final Pattern DURATION = Pattern.compile("\\s*([0-9]+)\\s*(ms|s|m|h|d)\\s*");
  private static final String[] BINARY = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private Quantities() {}

  /**
   * A cache capacity as given on the command line.
   *
   * @param text as given
   * @param chunks the capacity in chunks, or -1 when given in bytes
   * @param bytes the capacity in bytes, or -1 when given in chunks
   */
  record Capacity(String text, long chunks, long bytes) {
    boolean inBytes() {
      return bytes >= 0;
    }

    /** In chunks of {@code bytesPerChunk} KV bytes: ⌊bytes / bytesPerChunk⌋, at least 1. */
    long chunks(long bytesPerChunk) {
      if (!inBytes()) {
        return chunks;
      }
      if (bytesPerChunk <= 0) {
        throw new IllegalStateException("a byte capacity needs the bytes per chunk: " + text);
      }
      return Math.max(1, bytes / bytesPerChunk);
    }
  }

  /**
   * Parses a capacity: a whole number of chunks ({@code 4096}, {@code 4096 chunks}) or a size
   * ({@code 40GiB}, {@code 500 MB}, {@code 1.5TiB}; {@code k}/{@code KB} = 1000, {@code KiB} =
   * 1024).
   *
   * @throws IllegalArgumentException saying what is expected
   */
  static Capacity capacity(String text) {
    Matcher m = amount(text, "chunks (4096) or a size (40GiB, 500MB)");
    String unit = m.group(2).toLowerCase(Locale.ROOT);
    if (unit.isEmpty() || unit.equals("chunk") || unit.equals("chunks")) {
      if (m.group(1).contains(".")) {
        throw new IllegalArgumentException("a capacity in chunks is a whole number: " + text);
      }
      long chunks = parseWhole(m.group(1), text);
      if (chunks < 1) {
        throw new IllegalArgumentException("a capacity is at least 1 chunk, got " + text);
      }
      return new Capacity(text.strip(), chunks, -1);
    }
    long bytes = bytes(text);
    if (bytes < 1) {
      throw new IllegalArgumentException("a capacity is at least 1 byte, got " + text);
    }
    return new Capacity(text.strip(), -1, bytes);
  }

  /**
   * Parses a size in bytes: {@code 131072}, {@code 128KiB}, {@code 2 MiB}, {@code 1.5GB}.
   *
   * @throws IllegalArgumentException saying what is expected
   */
  static long bytes(String text) {
    Matcher m = amount(text, "a size (131072, 128KiB, 40GiB)");
    String unit = m.group(2).toLowerCase(Locale.ROOT);
    double multiplier =
        switch (unit) {
          case "", "b" -> 1;
          case "k", "kb" -> 1e3;
          case "m", "mb" -> 1e6;
          case "g", "gb" -> 1e9;
          case "t", "tb" -> 1e12;
          case "ki", "kib" -> 0x1p10;
          case "mi", "mib" -> 0x1p20;
          case "gi", "gib" -> 0x1p30;
          case "ti", "tib" -> 0x1p40;
          default ->
              throw new IllegalArgumentException(
                  "unknown size unit '" + m.group(2) + "' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
        };
    double value = Double.parseDouble(m.group(1)) * multiplier;
    if (value >= 0x1p62) {
      throw new IllegalArgumentException("size too large: " + text);
    }
    return (long) Math.floor(value);
  }

  /**
   * {@code text} matched as a number and its unit; refused, saying what was {@code expected}, when
   * it is not one.
   */
  private static Matcher amount(String text, String expected) {
    Matcher m = AMOUNT.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("expected " + expected + ", got '" + text + "'");
    }
    return m;
  }

  /**
   * Parses a window span: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}.
   *
   * @throws IllegalArgumentException saying what is expected
   */
  static Duration duration(String text) {
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a duration such as 30s, 5m, 1h, 1d or 500ms, got '" + text + "'");
    }
    long n = parseWhole(m.group(1), text);
    Duration d =
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
    if (d.toMillis() < 1) {
      throw new IllegalArgumentException("a window is at least 1ms, got " + text);
    }
    return d;
  }

  /** {@code 512 B}, {@code 1.5 KiB}, {@code 40.0 GiB}. */
  static String binaryBytes(double bytes) {
    int unit = 0;
    double value = bytes;
    while (value >= 1024 && unit < BINARY.length - 1) {
      value /= 1024;
      unit++;
    }
    if (unit == 0) {
      return String.format(Locale.ROOT, "%.0f B", value);
    }
    return String.format(
        Locale.ROOT,
        value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s",
        value,
        BINARY[unit]);
  }

  /** A short count for axis labels: {@code 950}, {@code 1k}, {@code 2.5M}. */
  static String shortCount(double n) {
    String[] suffixes = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    double value = n;
    while (Math.abs(value) >= 1000 && i < suffixes.length - 1) {
      value /= 1000;
      i++;
    }
    String digits =
        value == Math.rint(value)
            ? String.format(Locale.ROOT, "%.0f", value)
            : String.format(Locale.ROOT, Math.abs(value) < 10 ? "%.1f" : "%.0f", value);
    return digits + suffixes[i];
  }

  /** A rate as a percentage with one decimal: {@code 81.2%}; {@code n/a} for NaN. */
  static String percent(double rate) {
    return Double.isNaN(rate) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", rate * 100);
  }

  /** {@code 1h 5m}, {@code 42s}, {@code 350ms}: the two largest units. */
  static String span(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    long s = ms / 1000;
    long days = s / 86400;
    long hours = s / 3600 % 24;
    long minutes = s / 60 % 60;
    long seconds = s % 60;
    if (days > 0) {
      return days + "d " + hours + "h";
    }
    if (hours > 0) {
      return hours + "h " + minutes + "m";
    }
    if (minutes > 0) {
      return minutes + "m " + seconds + "s";
    }
    return seconds + "s";
  }

  /** The window span as {@code --window} takes it: {@code 30s}, {@code 5m}, {@code 1h}. */
  static String windowText(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000 == 0) {
      return ms / 86_400_000 + "d";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /**
   * A round window span that cuts {@code span} into about {@code windows} windows (at least 100
   * ms).
   */
  static Duration niceWindow(Duration span, int windows) {
    long[] steps = {
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
      86_400_000
    };
    long target = Math.max(1, span.toMillis() / Math.max(1, windows));
    for (long step : steps) {
      if (step >= target) {
        return Duration.ofMillis(step);
      }
    }
    long days = (target + 86_399_999) / 86_400_000;
    return Duration.ofDays(days);
  }

  private static long parseWhole(String digits, String text) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("number too large: " + text);
    }
  }
}
