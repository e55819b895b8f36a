package io.prefixlog.tools.smoke;

/** A step of the smoke test failed; the message says what was seen. */
final class SmokeFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SmokeFailure(String message) {
    super(message);
  }
}
