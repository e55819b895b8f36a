package io.prefixlog.core.rebuild;

import java.util.List;
import java.util.Objects;

/**
 * What the rebuild of one chain of a session found (a version 2 session has one chain, {@code ""}).
 *
 * @param sessionKey the session
 * @param chain the chain, {@code ""} for version 2 records
 * @param counts its turns by outcome
 * @param problemCount how many problems were found (a run of missing turns is one problem)
 * @param problems the first problems, in seq order, at most the rebuilder's limit
 */
public record SessionReport(
    String sessionKey, String chain, Counts counts, long problemCount, List<Problem> problems) {
  public SessionReport {
    Objects.requireNonNull(sessionKey, "sessionKey");
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(counts, "counts");
    problems = List.copyOf(problems);
  }

  /** A report of a whole session, or of input not filed under any chain. */
  public SessionReport(
      String sessionKey, Counts counts, long problemCount, List<Problem> problems) {
    this(sessionKey, "", counts, problemCount, problems);
  }

  /** {@code session_key/chain}, or the session key alone for version 2 records. */
  public String chainKey() {
    return TurnKey.chainKey(sessionKey, chain);
  }
}
