package io.prefixlog.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar on stderr, redrawn at most five times a second. Shown only when stderr is
 * a terminal or when asked for ({@code --progress}); otherwise every call is a no-op. Not
 * thread-safe: advance it from one thread.
 */
public final class Progress implements AutoCloseable {
  private static final long REDRAW_NANOS = 200_000_000L;
  private static final int BAR_WIDTH = 24;

  private final PrintStream err;
  private final boolean enabled;
  private final String label;
  private final String unit;
  private final boolean bytes;
  private final LongSupplier nanoClock;
  private final long start;
  private long total;
  private long done;
  private long lastDraw = Long.MIN_VALUE;
  private int lastWidth;

  private Progress(
      PrintStream err,
      boolean enabled,
      String label,
      long total,
      String unit,
      boolean bytes,
      LongSupplier nanoClock) {
    this.err = err;
    this.enabled = enabled;
    this.label = label;
    this.total = total;
    this.unit = unit;
    this.bytes = bytes;
    this.nanoClock = nanoClock;
    this.start = nanoClock.getAsLong();
  }

  /**
   * A bar counting items.
   *
   * @param total the expected count, or a value &lt;= 0 when unknown (no bar, no ETA)
   * @param unit what is counted ({@code events}, {@code records})
   */
  public static Progress counting(
      Terminal terminal, boolean forced, String label, long total, String unit) {
    return new Progress(
        terminal.err(),
        forced || terminal.errIsTerminal(),
        Objects.requireNonNull(label, "label"),
        total,
        unit,
        false,
        System::nanoTime);
  }

  /** A bar counting bytes (shown as MB). */
  public static Progress bytes(Terminal terminal, boolean forced, String label, long total) {
    return new Progress(
        terminal.err(),
        forced || terminal.errIsTerminal(),
        Objects.requireNonNull(label, "label"),
        total,
        "MB",
        true,
        System::nanoTime);
  }

  public boolean enabled() {
    return enabled;
  }

  public void advance(long n) {
    update(done + n);
  }

  /** Sets how much is done and redraws if it is time to. */
  public void update(long newDone) {
    done = newDone;
    if (!enabled) {
      return;
    }
    long now = nanoClock.getAsLong();
    if (lastDraw != Long.MIN_VALUE && now - lastDraw < REDRAW_NANOS) {
      return;
    }
    lastDraw = now;
    draw(render(label, done, total, now - start, unit, bytes));
  }

  /** Changes the expected total (e.g. once end offsets are known). */
  public void total(long newTotal) {
    total = newTotal;
  }

  /** Removes the bar, leaving the line clean for what follows. */
  @Override
  public void close() {
    if (enabled && lastWidth > 0) {
      err.print("\r" + " ".repeat(lastWidth) + "\r");
      err.flush();
      lastWidth = 0;
    }
  }

  private void draw(String line) {
    String padded = line.length() < lastWidth ? line + " ".repeat(lastWidth - line.length()) : line;
    err.print("\r" + padded);
    err.flush();
    lastWidth = line.length();
  }

  /**
   * The bar's text: {@code label [#####.....] 42% 1,234/2,938 events 410/s ETA 0:04}; without a
   * total, only the count and the rate.
   */
  static String render(
      String label, long done, long total, long elapsedNanos, String unit, boolean bytes) {
    double seconds = Math.max(elapsedNanos, 1) / 1e9;
    // The first half second says little about the rate: no rate and no ETA until then.
    boolean rated = seconds >= 0.5;
    double rate = done / seconds;
    StringBuilder s = new StringBuilder(label).append(' ');
    if (total > 0) {
      double fraction = Math.min(1.0, (double) done / total);
      int filled = (int) Math.round(fraction * BAR_WIDTH);
      s.append('[')
          .append("#".repeat(filled))
          .append(".".repeat(BAR_WIDTH - filled))
          .append("] ")
          .append(String.format(Locale.ROOT, "%3d%%", (int) Math.floor(fraction * 100)))
          .append("  ")
          .append(amount(done, bytes))
          .append('/')
          .append(amount(total, bytes))
          .append(' ')
          .append(unit);
      if (rated) {
        s.append("  ").append(rate(rate, bytes));
      }
      if (rated && done > 0 && done < total) {
        s.append("  ETA ").append(duration((long) ((total - done) / rate)));
      }
    } else {
      s.append(amount(done, bytes)).append(' ').append(unit);
      if (rated) {
        s.append("  ").append(rate(rate, bytes));
      }
    }
    return s.toString();
  }

  private static String amount(long n, boolean bytes) {
    return bytes
        ? String.format(Locale.ROOT, "%.1f", n / 1e6)
        : String.format(Locale.ROOT, "%,d", n);
  }

  private static String rate(double perSecond, boolean bytes) {
    return bytes
        ? String.format(Locale.ROOT, "%.1f MB/s", perSecond / 1e6)
        : String.format(Locale.ROOT, "%,d/s", Math.round(perSecond));
  }

  /** {@code m:ss}, or {@code h:mm:ss} from an hour on. */
  static String duration(long seconds) {
    long h = seconds / 3600;
    long m = seconds / 60 % 60;
    long s = seconds % 60;
    return h > 0
        ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s)
        : String.format(Locale.ROOT, "%d:%02d", m, s);
  }

  /** For tests: a bar with its own clock. */
  static Progress withClock(
      PrintStream err, String label, long total, String unit, LongSupplier nanoClock) {
    return new Progress(err, true, label, total, unit, false, nanoClock);
  }
}
