package io.prefixlog.core.delta;

import java.util.List;

/**
 * What the delta encoder keeps per session between requests.
 *
 * @param nextSeq the seq the session's next request gets (1 for a new session)
 * @param lastSeenMs when the session last had a request (processing time), for idle eviction
 * @param bases the stored bases, newest first; empty for a dormant session whose bases were evicted
 *     but whose seq counter is kept so that its seq keys never repeat
 */
public record SessionState(long nextSeq, long lastSeenMs, List<BaseInfo> bases) {
  public SessionState {
    if (nextSeq < 1) {
      throw new IllegalArgumentException("nextSeq must be >= 1, got " + nextSeq);
    }
    bases = List.copyOf(bases);
  }

  /** A session that has not had a request yet. */
  public static SessionState fresh() {
    return new SessionState(1, 0, List.of());
  }

  /** Total bytes of the stored bases. */
  public long baseBytes() {
    return bases.stream().mapToLong(BaseInfo::length).sum();
  }

  /** The same session with its bases forgotten (idle eviction); seq numbering continues. */
  public SessionState dormant() {
    return new SessionState(nextSeq, lastSeenMs, List.of());
  }
}
