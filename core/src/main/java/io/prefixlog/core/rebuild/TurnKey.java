package io.prefixlog.core.rebuild;

import java.util.Objects;
import java.util.Optional;

/**
 * The identity of one turn: {@code session_key}, {@code chain} and {@code seq}, as in the delta
 * topic's record key {@code session_key/chain/seq} (schema version 3), or {@code session_key/seq}
 * (version 2, whose chain is the empty string).
 */
public record TurnKey(String sessionKey, String chain, long seq) {
  public TurnKey {
    Objects.requireNonNull(sessionKey, "sessionKey");
    Objects.requireNonNull(chain, "chain");
    if (sessionKey.isEmpty()) {
      throw new IllegalArgumentException("sessionKey must not be empty");
    }
    // A session key from prefixlog is hex; one from elsewhere (a dump's value fields) may hold
    // '/', which only a key string cannot tell apart from the separators.
    if (chain.indexOf('/') >= 0) {
      throw new IllegalArgumentException("chain must not contain '/': " + chain);
    }
    if (seq < 1) {
      throw new IllegalArgumentException("seq must be >= 1, got " + seq);
    }
  }

  /** A version 2 turn, without a chain. */
  public TurnKey(String sessionKey, long seq) {
    this(sessionKey, "", seq);
  }

  /**
   * Parses a record key {@code session_key/chain/seq} or {@code session_key/seq}, or empty when the
   * key has neither form.
   */
  public static Optional<TurnKey> parse(String key) {
    if (key == null) {
      return Optional.empty();
    }
    int first = key.indexOf('/');
    int last = key.lastIndexOf('/');
    if (first <= 0 || last == key.length() - 1 || (last > first && last == first + 1)) {
      return Optional.empty();
    }
    String digits = key.substring(last + 1);
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
    if (seq < 1) {
      return Optional.empty();
    }
    String chain = last > first ? key.substring(first + 1, last) : "";
    if (chain.indexOf('/') >= 0) {
      return Optional.empty();
    }
    return Optional.of(new TurnKey(key.substring(0, first), chain, seq));
  }

  /**
   * The chain's identity: {@code session_key/chain}, or the session key alone for a version 2 turn.
   * Rebuild reports name turns by it.
   */
  public String chainKey() {
    return chainKey(sessionKey, chain);
  }

  static String chainKey(String sessionKey, String chain) {
    return chain.isEmpty() ? sessionKey : sessionKey + "/" + chain;
  }

  @Override
  public String toString() {
    return chainKey() + "/" + seq;
  }
}
