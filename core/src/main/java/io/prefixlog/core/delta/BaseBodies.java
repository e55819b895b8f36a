package io.prefixlog.core.delta;

import io.prefixlog.core.text.CodePointIndex;

/** Where the session encoder loads stored base bodies from (a state store, or memory). */
@FunctionalInterface
public interface BaseBodies {
  /**
   * The bytes of the base stored under {@code seq}, or null when they are gone (which the encoder
   * treats as "not a candidate").
   */
  byte[] load(long seq);

  /**
   * The code-point index of the base {@code seq}, whose bytes {@link #load} gave: kept with the
   * body where bodies are cached (built when it was a turn's target), else built here.
   */
  default CodePointIndex indexOf(long seq, byte[] body) {
    return CodePointIndex.of(body);
  }

  /**
   * The base {@code seq}'s bytes with their {@link PrefixFingerprint#states}, when both are at hand
   * without loading anything (kept with the body where bodies are cached), else null.
   */
  default PrefixFingerprint.Known fingerprinted(long seq) {
    return null;
  }
}
