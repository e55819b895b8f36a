package io.prefixlog.analysis.mrc;

import java.util.Objects;

/**
 * What {@link MrcAnalyzer} and {@link OptAnalyzer} check of every request before they take it, and
 * that they take none once finished. Both take a request's fields unpacked rather than as a {@link
 * LookupRequest} (whose constructor checks them too, but copies the keys), so they check here what
 * the record's constructor would: the model and the range of keys, then the figures with {@link
 * LookupRequest#checkShape}.
 */
final class RequestIntake {
  private boolean finished;

  /**
   * Checks that the analyzer still takes requests, that the model is given and that {@code [from,
   * to)} lies within {@code chunkKeys}.
   *
   * @throws IllegalStateException after {@link #finish()}
   * @throws IndexOutOfBoundsException if the range does not lie within the keys
   */
  void check(String model, long[] chunkKeys, int from, int to) {
    if (finished) {
      throw new IllegalStateException("finish() was called: start a new analyzer");
    }
    Objects.requireNonNull(model, "model");
    Objects.checkFromToIndex(from, to, chunkKeys.length);
  }

  /**
   * Ends the intake: {@link #check} refuses every request from now on.
   *
   * @throws IllegalStateException if it had already ended
   */
  void finish() {
    if (finished) {
      throw new IllegalStateException("finish() was already called");
    }
    finished = true;
  }
}
