package io.prefixlog.core.delta;

import java.util.List;
import java.util.Objects;

/**
 * What the delta encoder keeps per session between requests.
 *
 * @param chain the session's current chain ({@link ChainIds}); empty for a state written before
 *     chains existed, which the stream app replaces by a new chain at the session's next turn
 * @param nextSeq the seq the chain's next request gets (1 for a new chain)
 * @param lastSeenMs the newest record time of the session's requests (stream time, so that a
 *     backlog processed after an outage is judged by when it was captured), for idle eviction
 * @param bases the stored bases, newest first; empty for a dormant session whose bases were evicted
 *     but whose chain and seq counter are kept
 * @param log the records of the bases store the bases are rebuilt from ({@link BaseLog})
 */
public record SessionState(
    String chain, long nextSeq, long lastSeenMs, List<BaseInfo> bases, BaseLog log) {
  public SessionState {
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(log, "log");
    if (nextSeq < 1) {
      throw new IllegalArgumentException("nextSeq must be >= 1, got " + nextSeq);
    }
    bases = List.copyOf(bases);
  }

  /** A state whose bases are not kept in a store (the benchmarks' and tools' encoders). */
  public SessionState(String chain, long nextSeq, long lastSeenMs, List<BaseInfo> bases) {
    this(chain, nextSeq, lastSeenMs, bases, BaseLog.EMPTY);
  }

  /** The same state with another base log. */
  public SessionState withLog(BaseLog newLog) {
    return new SessionState(chain, nextSeq, lastSeenMs, bases, newLog);
  }

  /** The state of a chain that has not had a request yet. */
  public static SessionState newChain(String chain) {
    if (!ChainIds.isValid(chain)) {
      throw new IllegalArgumentException("not a chain id: " + chain);
    }
    return new SessionState(chain, 1, 0, List.of());
  }

  /**
   * Whether this state was written by an older version: before chains existed (no chain id), or
   * before the bases store held a {@link BaseLog} (its bases are whole bodies under their keys).
   * The stream app forgets such a state's bases and starts a new chain at its next turn.
   */
  public boolean isLegacy() {
    return chain.isEmpty() || log.rawBodies();
  }

  /** Total bytes of the stored bases. */
  public long baseBytes() {
    return bases.stream().mapToLong(BaseInfo::length).sum();
  }

  /** The same session with its bases forgotten (idle eviction); the chain and its seqs continue. */
  public SessionState dormant() {
    return new SessionState(chain, nextSeq, lastSeenMs, List.of(), BaseLog.EMPTY);
  }
}
