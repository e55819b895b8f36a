package io.prefixlog.tools;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * One subcommand of {@code prefixlog}: an entry of {@link Prefixlog}'s dispatch table.
 *
 * <p>Exit codes: {@value #OK} success, {@value #FAILED} the command ran and something failed,
 * {@value #USAGE} the command line is wrong (the message names the option).
 */
public interface Command {
  int OK = 0;
  int FAILED = 1;
  int USAGE = 2;

  /**
   * What a command is, declared once: the word that selects it ({@code prefixlog <name> ...}), one
   * line for {@code prefixlog help}, what its {@code --help} says, and its options (what {@code
   * --help} lists and the completion script completes).
   */
  record Spec(String name, String summary, String description, List<Option> options) {
    public Spec {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(summary, "summary");
      Objects.requireNonNull(description, "description");
      options = List.copyOf(options);
    }
  }

  /** The command's declaration. */
  Spec spec();

  default String name() {
    return spec().name();
  }

  default String summary() {
    return spec().summary();
  }

  default List<Option> options() {
    return spec().options();
  }

  /** The {@code --help} text: usage, description, every option with its default. */
  default String help() {
    return CommandLine.help("prefixlog " + name(), spec().description(), options());
  }

  /**
   * Reads the command line as every command does ({@link CommandLine#invoke}): {@code --help}
   * printed on the terminal's out, a usage error on its err.
   */
  default <T> CommandLine.Invocation<T> invoke(
      String[] args, Terminal terminal, CommandLine.Reader<T> reader) {
    return CommandLine.invoke(
        "prefixlog " + name(),
        spec().description(),
        options(),
        args,
        terminal.out(),
        terminal.err(),
        reader);
  }

  /**
   * Reads the command line as {@link #invoke(String[], Terminal, CommandLine.Reader)} does and runs
   * {@code action} on what {@code reader} built: the whole {@link #run} of a command.
   *
   * @return {@code action}'s exit code; {@value #OK} after {@code --help}, {@value #USAGE} after a
   *     usage error
   */
  default <T> int invoke(
      String[] args,
      Terminal terminal,
      CommandLine.Reader<T> reader,
      ToIntFunction<? super T> action) {
    CommandLine.Invocation<T> invocation = invoke(args, terminal, reader);
    return invocation.proceed() ? action.applyAsInt(invocation.value()) : invocation.exitCode();
  }

  /**
   * The whole {@link #run} of a command that hands its request to one service: the command line
   * read with the terminal's environment ({@code PREFIXLOG_*} defaults), the service run on what
   * was read, its {@link Outcome} the exit code: one mapping from a service's outcome to the exit
   * code for every such command, beside {@link #invoke(String[], Terminal, CommandLine.Reader,
   * ToIntFunction)}.
   *
   * @return the service's exit code; {@value #OK} after {@code --help}, {@value #USAGE} after a
   *     usage error
   */
  default <T> int runService(
      String[] args, Terminal terminal, EnvReader<T> reader, Function<? super T, Outcome> service) {
    return invoke(
        args,
        terminal,
        line -> reader.read(line, terminal.env()),
        request -> service.apply(request).exitCode());
  }

  /** Reads a command line into a request; the environment may give defaults or secrets. */
  @FunctionalInterface
  interface EnvReader<T> {
    T read(CommandLine line, Map<String, String> env) throws UsageException;
  }

  /**
   * Runs the command; handles {@code --help} itself.
   *
   * @param args the arguments after the command name
   * @return the process exit code
   */
  int run(String[] args);
}
