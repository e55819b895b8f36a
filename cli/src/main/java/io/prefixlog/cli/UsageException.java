package io.prefixlog.cli;

/** A command line that cannot be run: the message names the bad option and what it expects. */
public final class UsageException extends Exception {
  public UsageException(String message) {
    super(message);
  }
}
