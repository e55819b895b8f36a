package io.prefixlog.embedded;

import java.nio.file.Path;
import java.util.Objects;

/** An embedded service failed to start; the message quotes the end of its log file. */
public final class StartupException extends RuntimeException {
  private final transient Path logFile;

  public StartupException(String message, Path logFile, Throwable cause) {
    super(message, cause);
    this.logFile = Objects.requireNonNull(logFile, "logFile");
  }

  public StartupException(String message, Path logFile) {
    this(message, logFile, null);
  }

  /** The service's log file, for the full story. */
  public Path logFile() {
    return logFile;
  }
}
