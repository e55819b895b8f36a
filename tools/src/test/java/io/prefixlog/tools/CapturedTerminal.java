package io.prefixlog.tools;

import io.prefixlog.cli.Terminal;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The terminal a test runs a command or a service on, and what was printed on it: UTF-8, not
 * interactive, with the environment the test gives.
 */
public final class CapturedTerminal {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** A terminal with no environment, printing into this capture. */
  public Terminal terminal() {
    return terminal(Map.of());
  }

  /** A terminal with {@code env}, printing into this capture. */
  public Terminal terminal(Map<String, String> env) {
    return new Terminal(
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        env,
        false);
  }

  /** A terminal that drops what is printed on out and keeps err. */
  public Terminal errOnly() {
    return new Terminal(
        new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        Map.of(),
        false);
  }

  /** Forgets what was printed: the next run's output is all {@link #out} and {@link #err} hold. */
  public void reset() {
    out.reset();
    err.reset();
  }

  /**
   * {@link #reset} and a terminal with no environment: one run of a command with its own output.
   */
  public Terminal fresh() {
    reset();
    return terminal();
  }

  public String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  public String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  public byte[] outBytes() {
    return out.toByteArray();
  }

  public byte[] errBytes() {
    return err.toByteArray();
  }
}
