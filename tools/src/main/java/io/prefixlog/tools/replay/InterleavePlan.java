package io.prefixlog.tools.replay;

import java.util.ArrayList;
import java.util.List;

/**
 * The order in which replay sends turns: {@code inFlight} sessions at a time, one turn of each in
 * turn (round robin); when a session has sent its last turn, the next waiting session takes its
 * slot. Turns of one session keep their order. Pure: no clock, no randomness.
 */
final class InterleavePlan {
  private InterleavePlan() {}

  /** One send: turn {@code turn} (0-based) of session {@code session} (index into the input). */
  record Step(int session, int turn) {}

  /**
   * @param turnCounts turns of each session, in the order sessions start; sessions with no turns
   *     are skipped
   * @param inFlight how many sessions are interleaved, at least 1
   * @param maxSteps stop after this many steps (the plan may end earlier)
   */
  static List<Step> of(int[] turnCounts, int inFlight, long maxSteps) {
    if (inFlight < 1) {
      throw new IllegalArgumentException("inFlight must be >= 1, got " + inFlight);
    }
    if (maxSteps < 0) {
      throw new IllegalArgumentException("maxSteps must be >= 0, got " + maxSteps);
    }
    int[] slotSession = new int[inFlight];
    int[] slotTurn = new int[inFlight];
    int next = 0;
    int active = 0;
    for (int slot = 0; slot < inFlight; slot++) {
      next = skipEmpty(turnCounts, next);
      slotSession[slot] = next < turnCounts.length ? next++ : -1;
      if (slotSession[slot] >= 0) {
        active++;
      }
    }
    List<Step> steps = new ArrayList<>();
    while (active > 0 && steps.size() < maxSteps) {
      for (int slot = 0; slot < inFlight && steps.size() < maxSteps; slot++) {
        int session = slotSession[slot];
        if (session < 0) {
          continue;
        }
        steps.add(new Step(session, slotTurn[slot]++));
        if (slotTurn[slot] == turnCounts[session]) {
          next = skipEmpty(turnCounts, next);
          slotTurn[slot] = 0;
          if (next < turnCounts.length) {
            slotSession[slot] = next++;
          } else {
            slotSession[slot] = -1;
            active--;
          }
        }
      }
    }
    return steps;
  }

  private static int skipEmpty(int[] turnCounts, int from) {
    int i = from;
    while (i < turnCounts.length && turnCounts[i] <= 0) {
      i++;
    }
    return i;
  }
}
