package io.prefixlog.benchmarks.harness;

import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.UsageException;
import java.io.PrintStream;
import java.util.List;

/**
 * The benchmarks' command lines, on the same picocli-backed parser as {@code bin/prefixlog}'s
 * commands ({@link CommandLine}): declared options with their defaults, {@code --help} generated
 * from them, and one error form ({@code Benchmark: --rounds must be at least 1}, exit 2).
 */
public final class BenchmarkCli {
  /** Exit code of a wrong command line. */
  public static final int USAGE = 2;

  /** A parsed command line, or the exit code to return at once ({@code --help}, a usage error). */
  public record Invocation(CommandLine line, int exitCode) {
    /** True when the benchmark should run with {@link #line}. */
    public boolean proceed() {
      return line != null;
    }
  }

  private BenchmarkCli() {}

  /** Prints a usage error as {@code Name: message (see Name --help)}; returns {@link #USAGE}. */
  public static int usageError(String name, UsageException e, PrintStream err) {
    String hint = "(see " + name + " --help)";
    String message = e.getMessage();
    err.println(name + ": " + (message.endsWith(hint) ? message : message + " " + hint));
    return USAGE;
  }

  /** {@code value} when it is at most {@code max}; else a usage error naming the option. */
  public static long atMost(String option, long value, long max) throws UsageException {
    if (value > max) {
      throw new UsageException("--" + option + " must be at most " + max + ", got " + value);
    }
    return value;
  }

  /** {@code value} when it is at most {@code max}; else a usage error naming the option. */
  public static double atMost(String option, double value, double max) throws UsageException {
    if (value > max) {
      throw new UsageException("--" + option + " must be at most " + max + ", got " + value);
    }
    return value;
  }

  /**
   * Parses {@code args}; prints the help on {@code out} for {@code --help}, or the error and the
   * help's first line on {@code err}.
   */
  public static Invocation parse(
      String name,
      String description,
      List<Option> options,
      String[] args,
      PrintStream out,
      PrintStream err) {
    try {
      CommandLine line = CommandLine.parse(name, options, args);
      if (line.helpRequested()) {
        out.print(CommandLine.help(name, description, options));
        return new Invocation(null, 0);
      }
      return new Invocation(line, 0);
    } catch (UsageException e) {
      return new Invocation(null, usageError(name, e, err));
    }
  }
}
