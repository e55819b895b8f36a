package io.prefixlog.benchmarks.harness;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import java.io.PrintStream;
import java.util.List;
import java.util.Objects;

/**
 * What a benchmark is, declared once: its name (the prefix of its output and of its errors), what
 * its {@code --help} and its first output line say, and its options. {@link #run} reads the command
 * line like every {@code bin/prefixlog} command ({@link CommandLine#invoke}: {@code --help}
 * generated from the options, one error form {@code Name: message} with exit 2) and then runs the
 * benchmark's body, so that no benchmark writes that preamble again.
 */
public record Benchmark(String name, String description, List<Option> options) {
  public Benchmark {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    options = List.copyOf(options);
  }

  /** What a benchmark does with the values read from its command line; returns the exit code. */
  @FunctionalInterface
  public interface Body<T> {
    int run(T settings) throws Exception;
  }

  /**
   * Reads {@code args} with {@code reader} and runs {@code body} with what it read. Returns {@code
   * body}'s exit code, 0 after {@code --help} (printed on {@code out}), 2 after a usage error
   * (printed on {@code err}), 1 when the body is interrupted.
   */
  public <T> int run(
      String[] args,
      PrintStream out,
      PrintStream err,
      CommandLine.Reader<T> reader,
      Body<? super T> body)
      throws Exception {
    CommandLine.Invocation<T> invocation =
        CommandLine.invoke(name, description, options, args, out, err, reader);
    if (!invocation.proceed()) {
      return invocation.exitCode();
    }
    try {
      return body.run(invocation.value());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(name + ": interrupted");
      return 1;
    }
  }

  /**
   * {@link #run} on the process's standard streams, exiting with its code: the whole {@code main}
   * of a benchmark.
   */
  public <T> void main(String[] args, CommandLine.Reader<T> reader, Body<? super T> body)
      throws Exception {
    System.exit(run(args, System.out, System.err, reader, body));
  }

  /** The first line of the benchmark's output: its name and what it measures. */
  public String title() {
    return name + ": " + description;
  }

  /**
   * {@code value} when it is at most {@code max}; else a usage error naming the option ({@link
   * CommandLine} has lower bounds only).
   */
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
}
