package io.prefixlog.core.rebuild;

import java.util.Objects;
import java.util.Optional;

/**
 * The identity of one turn: {@code session_key} and {@code seq}, as in the delta topic's record key
 * {@code session_key/seq}.
 */
public record TurnKey(String sessionKey, long seq) {
  public TurnKey {
    Objects.requireNonNull(sessionKey, "sessionKey");
    if (sessionKey.isEmpty()) {
      throw new IllegalArgumentException("sessionKey must not be empty");
    }
    if (seq < 1) {
      throw new IllegalArgumentException("seq must be >= 1, got " + seq);
    }
  }

  /**
   * Parses a record key {@code session_key/seq} (the seq after the last {@code /}), or empty when
   * the key does not have that form.
   */
  public static Optional<TurnKey> parse(String key) {
    if (key == null) {
      return Optional.empty();
    }
    int slash = key.lastIndexOf('/');
    if (slash <= 0 || slash == key.length() - 1) {
      return Optional.empty();
    }
    String digits = key.substring(slash + 1);
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        return Optional.empty();
      }
    }
    long seq;
    try {
      seq = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return Optional.empty(); // more digits than a long holds
    }
    return seq < 1 ? Optional.empty() : Optional.of(new TurnKey(key.substring(0, slash), seq));
  }

  @Override
  public String toString() {
    return sessionKey + "/" + seq;
  }
}
