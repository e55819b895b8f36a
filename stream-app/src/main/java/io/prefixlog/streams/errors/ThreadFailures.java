package io.prefixlog.streams.errors;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Stream-thread failures in a sliding window. Under the limit a failed thread is replaced; at
 * {@code limit} failures within {@code window} the app gives up: the same failure would kill every
 * replacement (under exactly-once the failing input is replayed from the last commit), so replacing
 * threads only burns CPU, restores state again and again and floods the logs, while {@code /health}
 * kept saying the app was running. Once it gives up, {@link #problem()} says why, for good.
 */
public final class ThreadFailures {
  private final int limit;
  private final Duration window;
  private final LongSupplier clockMs;
  private final Deque<Long> recent = new ArrayDeque<>();
  private String gaveUp;

  public ThreadFailures(int limit, Duration window, LongSupplier clockMs) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1 but was " + limit);
    }
    this.limit = limit;
    this.window = Objects.requireNonNull(window, "window");
    this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
  }

  /** Records one failure; true when this one reaches the limit and the app should stop. */
  public synchronized boolean record(Throwable failure) {
    long now = clockMs.getAsLong();
    recent.addLast(now);
    while (recent.peekFirst() <= now - window.toMillis()) {
      recent.removeFirst();
    }
    if (recent.size() < limit) {
      return false;
    }
    if (gaveUp == null) {
      gaveUp =
          "stream threads failed "
              + recent.size()
              + " times within "
              + window
              + " (PREFIXLOG_THREAD_FAILURE_LIMIT="
              + limit
              + "); last: "
              + failure.getClass().getName()
              + "; the app stopped instead of replacing them";
    }
    return true;
  }

  /** Why the app gave up, or empty while it has not. */
  public synchronized Optional<String> problem() {
    return Optional.ofNullable(gaveUp);
  }
}
