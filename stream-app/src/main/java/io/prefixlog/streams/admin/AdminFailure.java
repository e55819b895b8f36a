package io.prefixlog.streams.admin;

import java.time.Duration;

/**
 * The error a startup step raises when the broker did not answer its admin call: every step (topic
 * creation, the size-limit and retention checks) says what it could not do, where and within how
 * long, in the same words, so that an operator reads one shape of message whichever step failed.
 */
final class AdminFailure {
  private AdminFailure() {}

  /**
   * @param what what the step could not do, e.g. {@code "create the topics"}
   * @param cause the admin call's failure; its own cause, when it has one, is what is reported
   */
  static IllegalStateException cannot(
      String what, String bootstrapServers, Duration timeout, Exception cause) {
    return new IllegalStateException(
        "cannot "
            + what
            + " on "
            + bootstrapServers
            + " within "
            + timeout.toSeconds()
            + " s: "
            + (cause.getCause() == null ? cause : cause.getCause()),
        cause);
  }
}
