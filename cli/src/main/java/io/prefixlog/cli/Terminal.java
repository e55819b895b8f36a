package io.prefixlog.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * Where a command writes and what it knows of its environment; tests pass their own.
 *
 * @param out command output (a rebuilt body, a summary)
 * @param err diagnostics, warnings and progress
 * @param env environment variables
 * @param errIsTerminal whether {@code err} is an interactive terminal (progress bars only there)
 */
public record Terminal(
    PrintStream out, PrintStream err, Map<String, String> env, boolean errIsTerminal) {

  /**
   * Set by {@code bin/prefixlog} from {@code [ -t 2 ]}: Java cannot tell whether stderr alone is a
   * terminal.
   */
  public static final String STDERR_TTY_PROPERTY = "prefixlog.stderr.tty";

  public Terminal {
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
    env = Map.copyOf(env);
  }

  /** The process's own streams and environment. */
  public static Terminal system() {
    String tty = System.getProperty(STDERR_TTY_PROPERTY);
    // Without the launcher's answer: a console means stdin and stdout are terminals, and stderr
    // almost always is too.
    boolean errIsTerminal = tty != null ? Boolean.parseBoolean(tty) : System.console() != null;
    return new Terminal(System.out, System.err, System.getenv(), errIsTerminal);
  }

  /**
   * A non-interactive terminal writing UTF-8 to {@code out} and {@code err}, with no environment:
   * how a command runs embedded (and in tests), its output kept.
   */
  public static Terminal captured(OutputStream out, OutputStream err) {
    return new Terminal(
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        Map.of(),
        false);
  }
}
