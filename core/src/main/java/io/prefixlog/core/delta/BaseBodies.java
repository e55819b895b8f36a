package io.prefixlog.core.delta;

/** Where the session encoder loads stored base bodies from (a state store, or memory). */
@FunctionalInterface
public interface BaseBodies {
  /**
   * The bytes of the base stored under {@code seq}, or null when they are gone (which the encoder
   * treats as "not a candidate").
   */
  byte[] load(long seq);
}
