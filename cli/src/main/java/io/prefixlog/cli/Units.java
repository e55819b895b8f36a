package io.prefixlog.cli;

import java.util.Locale;

/** Numbers as the summaries print them. */
public final class Units {
  private Units() {}

  /** {@code 1,234,567}. */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** {@code 1 record}, {@code 1,234 records}: the count and the noun, plural unless one. */
  public static String count(long n, String noun) {
    return count(n) + " " + (n == 1 ? noun : noun + "s");
  }

  /** Bytes in the largest unit that keeps a value of at least 1: {@code 512 B}, {@code 1.5 MB}. */
  public static String bytes(long n) {
    if (n < 1000) {
      return n + " B";
    }
    String[] units = {"kB", "MB", "GB", "TB"};
    double value = n;
    int unit = -1;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  /** Seconds with one decimal. */
  public static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
  }
}
