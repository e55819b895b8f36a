package io.prefixlog.core.delta;

/** A delta that cannot be applied to its base: the chain it belongs to is broken. */
public final class DeltaException extends Exception {
  public DeltaException(String message) {
    super(message);
  }
}
