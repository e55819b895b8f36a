package io.prefixlog.core.rebuild;

import java.util.Objects;

/**
 * One thing that did not check out.
 *
 * @param sessionKey the session, or null for input that could not be attributed to one
 * @param seq the turn (the first missing one for a gap), or null when no turn is known
 * @param kind what went wrong
 * @param reason a sentence saying exactly what, never quoting a body
 * @param location where the record was read (e.g. {@code partition 2 offset 17}, {@code
 *     deltas.jsonl:17}), or null when unknown or not applicable
 */
public record Problem(String sessionKey, Long seq, Kind kind, String reason, String location) {
  public Problem {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reason, "reason");
  }

  /** What went wrong. */
  public enum Kind {
    /** The body was rebuilt but its length or SHA-256 differs from the record's. */
    CHECKSUM_MISMATCH,
    /**
     * The body cannot be rebuilt: its base is missing, erased, not an earlier turn, itself broken,
     * or not the bytes the delta was encoded against; or the ops reach outside the base.
     */
    BROKEN_CHAIN,
    /** The record cannot be read or lacks what a rebuild needs. */
    MALFORMED,
    /**
     * Turns between 1 and the session's last seq that are in the input neither as a record nor as a
     * tombstone.
     */
    GAP,
    /** The session or turn that was asked for is not in the input, or was erased. */
    NOT_FOUND
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    s.append(kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
    if (sessionKey != null) {
      s.append(" session ").append(sessionKey);
    }
    if (seq != null) {
      s.append(" seq ").append(seq);
    }
    s.append(": ").append(reason);
    if (location != null) {
      s.append(" (at ").append(location).append(')');
    }
    return s.toString();
  }
}
