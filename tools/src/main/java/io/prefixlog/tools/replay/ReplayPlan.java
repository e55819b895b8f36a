package io.prefixlog.tools.replay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When each captured request is sent again: at its original offset from the first request ({@code
 * ts}), divided by the speed, and, for a request that in the capture began only after its session's
 * previous answer had arrived ({@code ts >= previous ts + previous latency}), not before that
 * answer has arrived in the replay too. A chat client waits for the answer before it sends the next
 * turn; requests of a session that overlapped in the capture (parallel tool calls) overlap again.
 *
 * @param steps the requests in send order
 * @param captureSpanMs the first request's {@code ts} to the last one's
 * @param speed the factor the capture's gaps are divided by
 */
record ReplayPlan(List<Step> steps, long captureSpanMs, double speed) {
  ReplayPlan {
    steps = List.copyOf(steps);
  }

  /**
   * One request to send.
   *
   * @param request the captured request
   * @param dueNanos when to send it, from the start of the replay
   * @param after the index of the step whose answer must have arrived first, or -1
   */
  record Step(CapturedRequest request, long dueNanos, int after) {}

  /**
   * @param ordered the requests in arrival order
   * @param speed how much faster than captured (2: gaps halved); positive
   */
  static ReplayPlan of(List<CapturedRequest> ordered, double speed) {
    if (!(speed > 0) || Double.isInfinite(speed)) {
      throw new IllegalArgumentException("speed must be positive and finite, got " + speed);
    }
    List<Step> steps = new ArrayList<>(ordered.size());
    Map<String, Integer> lastOfSession = new HashMap<>();
    long first = ordered.isEmpty() ? 0 : ordered.get(0).tsMs();
    long last = first;
    for (CapturedRequest request : ordered) {
      long offsetMs = request.tsMs() - first;
      long due = Math.round(offsetMs * 1e6 / speed);
      Integer previous = lastOfSession.put(request.sessionKey(), steps.size());
      int after = -1;
      if (previous != null && waitedForAnswer(ordered.get(previous), request)) {
        after = previous;
      }
      steps.add(new Step(request, due, after));
      last = Math.max(last, request.tsMs());
    }
    return new ReplayPlan(steps, last - first, speed);
  }

  /**
   * Whether the capture shows {@code next} sent after {@code previous}'s answer had arrived. The
   * capture's times are whole milliseconds, so an answer that ended in the same millisecond counts
   * as arrived. Without a captured latency, a later start is taken as a wait.
   */
  static boolean waitedForAnswer(CapturedRequest previous, CapturedRequest next) {
    if (previous.latencyMs() == null) {
      return next.tsMs() > previous.tsMs();
    }
    return next.tsMs() >= previous.tsMs() + (long) Math.floor(previous.latencyMs());
  }

  /** The time the schedule takes at this speed, ignoring the engine: the capture span / speed. */
  long scheduledSpanNanos() {
    return Math.round(captureSpanMs * 1e6 / speed);
  }
}
