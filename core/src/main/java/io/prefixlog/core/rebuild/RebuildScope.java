package io.prefixlog.core.rebuild;

/**
 * Which turns a rebuild covers: every session, one session (all its chains), one chain, or one turn
 * (with only the chain of bases it needs).
 *
 * @param sessionKey the one session, or null for every session
 * @param chain the one chain of that session ({@code ""} for version 2 records), or null for all
 * @param seq the one turn of that session (in each chain that matches), or null for all its turns
 */
public record RebuildScope(String sessionKey, String chain, Long seq) {
  public RebuildScope {
    if ((seq != null || chain != null) && sessionKey == null) {
      throw new IllegalArgumentException(
          "a chain or a turn (seq " + seq + ") needs its session key");
    }
    if (seq != null && seq < 1) {
      throw new IllegalArgumentException("seq must be >= 1, got " + seq);
    }
    if (sessionKey != null && sessionKey.isEmpty()) {
      throw new IllegalArgumentException("sessionKey must not be empty");
    }
  }

  public static RebuildScope allSessions() {
    return new RebuildScope(null, null, null);
  }

  public static RebuildScope session(String sessionKey) {
    return new RebuildScope(sessionKey, null, null);
  }

  /** One turn of a session, in whichever chain has it (a version 2 session has one). */
  public static RebuildScope turn(String sessionKey, long seq) {
    return new RebuildScope(sessionKey, null, seq);
  }

  public static RebuildScope turn(String sessionKey, String chain, long seq) {
    return new RebuildScope(sessionKey, chain, seq);
  }

  /**
   * Whether a record of this turn can matter: its session (and chain) is in scope and, for one
   * turn, it is not later than that turn (bases are always earlier turns of the same chain).
   */
  public boolean mayNeed(TurnKey key) {
    return (sessionKey == null || sessionKey.equals(key.sessionKey()))
        && (chain == null || chain.equals(key.chain()))
        && (seq == null || key.seq() <= seq);
  }
}
