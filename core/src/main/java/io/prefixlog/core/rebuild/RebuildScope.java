package io.prefixlog.core.rebuild;

/**
 * Which turns a rebuild covers: every session, one session, or one turn (with only the chain of
 * bases it needs).
 *
 * @param sessionKey the one session, or null for every session
 * @param seq the one turn of that session, or null for all its turns
 */
public record RebuildScope(String sessionKey, Long seq) {
  public RebuildScope {
    if (seq != null && sessionKey == null) {
      throw new IllegalArgumentException("a turn (seq " + seq + ") needs its session key");
    }
    if (seq != null && seq < 1) {
      throw new IllegalArgumentException("seq must be >= 1, got " + seq);
    }
    if (sessionKey != null && sessionKey.isEmpty()) {
      throw new IllegalArgumentException("sessionKey must not be empty");
    }
  }

  public static RebuildScope allSessions() {
    return new RebuildScope(null, null);
  }

  public static RebuildScope session(String sessionKey) {
    return new RebuildScope(sessionKey, null);
  }

  public static RebuildScope turn(String sessionKey, long seq) {
    return new RebuildScope(sessionKey, seq);
  }

  /**
   * Whether a record of this turn can matter: its session is in scope and, for one turn, it is not
   * later than that turn (bases are always earlier turns).
   */
  public boolean mayNeed(TurnKey key) {
    return (sessionKey == null || sessionKey.equals(key.sessionKey()))
        && (seq == null || key.seq() <= seq);
  }
}
