package io.prefixlog.cli;

/**
 * How a service run ended, as a command reports it: its exit code is the {@link
 * io.prefixlog.tools.Command} contract's, so a command maps a service's outcome to its process exit
 * code without a table of its own.
 */
public enum Outcome {
  /** The work was done. */
  DONE(0),
  /** The work ran and something failed; the service said what on the terminal's err. */
  FAILED(1),
  /**
   * The request cannot be carried out as given (found only once the input was read, e.g. a byte
   * capacity for chunks of unknown size); the service named the option on the terminal's err.
   */
  USAGE(2);

  private final int exitCode;

  Outcome(int exitCode) {
    this.exitCode = exitCode;
  }

  /** The process exit code of a command that ended so. */
  public int exitCode() {
    return exitCode;
  }

  /** The outcome of an exit code: 0 done, 2 usage, anything else failed. */
  public static Outcome ofExitCode(int code) {
    return switch (code) {
      case 0 -> DONE;
      case 2 -> USAGE;
      default -> FAILED;
    };
  }
}
