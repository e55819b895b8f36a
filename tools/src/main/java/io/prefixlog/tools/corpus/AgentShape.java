package io.prefixlog.tools.corpus;

/**
 * The shape of generated coding-agent traffic ({@link AgentSessions}): how many sessions, how long,
 * how large their tool results are, and how often they show or quote earlier text again.
 *
 * @param sessions conversations, interleaved
 * @param turns requests per conversation
 * @param minToolResultBytes the smallest tool result (a file shown, a command's output)
 * @param maxToolResultBytes the largest tool result
 * @param reshowShare share of tool results that show an earlier result again with a few lines
 *     edited (a file viewed after an edit)
 * @param quoteShare share of edit calls whose arguments quote {@code quoteChars} characters of an
 *     earlier result
 * @param quoteChars characters an edit call quotes
 * @param compactEvery every this many turns a compaction replaces the oldest tool results with a
 *     stub (0: never)
 * @param keepRecentResults tool results a compaction leaves alone, the newest ones
 * @param seed the random seed: the same shape and seed give the same bytes
 */
public record AgentShape(
    int sessions,
    int turns,
    int minToolResultBytes,
    int maxToolResultBytes,
    double reshowShare,
    double quoteShare,
    int quoteChars,
    int compactEvery,
    int keepRecentResults,
    long seed) {

  /**
   * Ten interleaved coding-agent sessions of 70 turns, 5–20 KB tool results, 20 % shown again, 30 %
   * of edits quoting 600 characters, a compaction every 25 turns: bodies grow to about 0.6 MB.
   */
  public static final AgentShape DEFAULT =
      new AgentShape(10, 70, 5_000, 20_000, 0.2, 0.3, 600, 25, 8, 20261128L);

  public AgentShape {
    if (sessions < 1) {
      throw new IllegalArgumentException("sessions must be >= 1, got " + sessions);
    }
    if (turns < 1) {
      throw new IllegalArgumentException("turns must be >= 1, got " + turns);
    }
    if (minToolResultBytes < 100 || maxToolResultBytes < minToolResultBytes) {
      throw new IllegalArgumentException(
          "tool results must be 100 bytes or more, and max >= min; got "
              + minToolResultBytes
              + ".."
              + maxToolResultBytes);
    }
    if (!(reshowShare >= 0 && reshowShare <= 1) || !(quoteShare >= 0 && quoteShare <= 1)) {
      throw new IllegalArgumentException(
          "shares must be in [0, 1], got reshow " + reshowShare + ", quote " + quoteShare);
    }
    if (quoteChars < 1 || compactEvery < 0 || keepRecentResults < 0) {
      throw new IllegalArgumentException(
          "quoteChars must be >= 1, compactEvery and keepRecentResults >= 0; got "
              + quoteChars
              + ", "
              + compactEvery
              + ", "
              + keepRecentResults);
    }
  }

  /** The same shape with another number of sessions and turns. */
  public AgentShape withSize(int sessions, int turns) {
    return with(sessions, turns, seed);
  }

  /** The same shape with another seed. */
  public AgentShape withSeed(long seed) {
    return with(sessions, turns, seed);
  }

  /** The sizes and seed are what callers vary; every other figure stays as this shape has it. */
  private AgentShape with(int sessions, int turns, long seed) {
    return new AgentShape(
        sessions,
        turns,
        minToolResultBytes,
        maxToolResultBytes,
        reshowShare,
        quoteShare,
        quoteChars,
        compactEvery,
        keepRecentResults,
        seed);
  }
}
