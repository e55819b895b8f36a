package io.prefixlog.analysis.mrc;

import java.time.Duration;
import java.util.Objects;

/**
 * How the rolling hit rate is cut into windows.
 *
 * <ul>
 *   <li>{@link Kind#TIME}: window k holds the requests with timestamps in [k × size, (k + 1) ×
 *       size) ms, aligned to the epoch. The input order is the access order: a request older than
 *       the current window (out of order) is counted in the current window, never reopens an
 *       earlier one, and is counted in {@link Analysis#outOfOrderRequests()}.
 *   <li>{@link Kind#REQUESTS}: window k holds requests k × size .. (k + 1) × size − 1, in input
 *       order, over all models.
 *   <li>{@link Kind#NONE}: no windows.
 * </ul>
 *
 * @param kind the kind
 * @param size the span in ms, or the requests per window; 0 for {@link Kind#NONE}
 */
public record Windowing(Kind kind, long size) {
  /** See {@link Windowing}. */
  public enum Kind {
    NONE,
    TIME,
    REQUESTS
  }

  private static final Windowing NONE = new Windowing(Kind.NONE, 0);

  public Windowing {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.NONE ? size != 0 : size < 1) {
      throw new IllegalArgumentException(
          "window size for "
              + kind
              + " must be "
              + (kind == Kind.NONE ? "0" : ">= 1")
              + ", got "
              + size);
    }
  }

  public static Windowing none() {
    return NONE;
  }

  public static Windowing byTime(Duration span) {
    return new Windowing(Kind.TIME, span.toMillis());
  }

  public static Windowing byRequests(long requests) {
    return new Windowing(Kind.REQUESTS, requests);
  }
}
