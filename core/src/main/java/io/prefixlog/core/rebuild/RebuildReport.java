package io.prefixlog.core.rebuild;

import java.util.List;
import java.util.Objects;

/**
 * What a whole rebuild found.
 *
 * @param sessions sessions examined
 * @param sessionsWithProblems sessions with at least one problem
 * @param counts turns by outcome, over every session
 * @param superseded records replaced by a later record or tombstone under the same key (the newest
 *     wins, as compaction keeps it)
 * @param problemCount how many problems were found
 * @param problems the first problems (sessions in key order, turns in seq order), at most the
 *     rebuilder's limit
 */
public record RebuildReport(
    long sessions,
    long sessionsWithProblems,
    Counts counts,
    long superseded,
    long problemCount,
    List<Problem> problems) {
  public RebuildReport {
    Objects.requireNonNull(counts, "counts");
    problems = List.copyOf(problems);
  }

  /** True when every turn examined was rebuilt and checked, and nothing asked for was missing. */
  public boolean passed(boolean allowGaps) {
    return counts.failures(allowGaps) == 0;
  }
}
