package io.prefixlog.core.rebuild;

import java.util.List;
import java.util.Objects;

/**
 * What the rebuild of one session found.
 *
 * @param sessionKey the session
 * @param counts its turns by outcome
 * @param problemCount how many problems were found (a run of missing turns is one problem)
 * @param problems the first problems, in seq order, at most the rebuilder's limit
 */
public record SessionReport(
    String sessionKey, Counts counts, long problemCount, List<Problem> problems) {
  public SessionReport {
    Objects.requireNonNull(sessionKey, "sessionKey");
    Objects.requireNonNull(counts, "counts");
    problems = List.copyOf(problems);
  }
}
