package io.prefixlog.core.rebuild;

import java.util.ArrayList;
import java.util.List;

/**
 * A rebuild's counts while it runs, with the first problems it met: mutable, frozen into {@link
 * Counts} at the end.
 */
final class RunningCounts {
  private final int maxProblems;
  private final List<Problem> problems = new ArrayList<>();
  private long problemCount;
  long turns;
  long rebuiltOk;
  long checksumMismatches;
  long brokenChains;
  long malformed;
  long erased;
  long missingTurns;
  long notFound;
  long bytesRebuilt;

  RunningCounts(int maxProblems) {
    this.maxProblems = maxProblems;
  }

  /**
   * Records a problem and counts it under its kind ({@link Problem.Kind#GAP}: see {@link #gap}).
   */
  void problem(Problem problem) {
    switch (problem.kind()) {
      case CHECKSUM_MISMATCH -> checksumMismatches++;
      case BROKEN_CHAIN -> brokenChains++;
      case MALFORMED -> malformed++;
      case NOT_FOUND -> notFound++;
      case GAP -> throw new IllegalArgumentException("gaps are counted by gap()");
    }
    keep(problem);
  }

  /** Records a run of {@code missing} missing turns as one problem. */
  void gap(Problem problem, long missing) {
    missingTurns += missing;
    keep(problem);
  }

  /** Adds a session's results to this (total) tally. */
  void add(SessionReport report) {
    Counts c = report.counts();
    turns += c.turns();
    rebuiltOk += c.rebuiltOk();
    checksumMismatches += c.checksumMismatches();
    brokenChains += c.brokenChains();
    malformed += c.malformed();
    erased += c.erased();
    missingTurns += c.missingTurns();
    notFound += c.notFound();
    bytesRebuilt += c.bytesRebuilt();
    problemCount += report.problemCount();
    for (Problem problem : report.problems()) {
      if (problems.size() >= maxProblems) {
        break;
      }
      problems.add(problem);
    }
  }

  private void keep(Problem problem) {
    problemCount++;
    if (problems.size() < maxProblems) {
      problems.add(problem);
    }
  }

  long problemCount() {
    return problemCount;
  }

  List<Problem> problems() {
    return problems;
  }

  Counts counts() {
    return new Counts(
        turns,
        rebuiltOk,
        checksumMismatches,
        brokenChains,
        malformed,
        erased,
        missingTurns,
        notFound,
        bytesRebuilt);
  }
}
