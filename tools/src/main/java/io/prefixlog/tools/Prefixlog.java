package io.prefixlog.tools;

import io.prefixlog.tools.analyze.AnalyzeCommand;
import io.prefixlog.tools.cli.Terminal;
import io.prefixlog.tools.cli.Version;
import io.prefixlog.tools.erase.EraseCommand;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.smoke.ComposeSmokeCommand;
import io.prefixlog.tools.up.UpCommand;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The {@code prefixlog} launcher ({@code bin/prefixlog}): {@code prefixlog <command> [options]}.
 * Commands are looked up in {@link #commands}; {@code help} is added to whatever is there.
 */
public final class Prefixlog {
  private final List<Command> commands;
  private final PrintStream out;
  private final PrintStream err;

  Prefixlog(List<Command> commands, PrintStream out, PrintStream err) {
    List<Command> all = new ArrayList<>(commands);
    all.add(new Help());
    this.commands = List.copyOf(all);
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    Terminal terminal = Terminal.system();
    int code = new Prefixlog(commands(terminal), terminal.out(), terminal.err()).run(args);
    terminal.out().flush();
    System.exit(code);
  }

  /** The dispatch table, in the order {@code help} lists it. */
  static List<Command> commands(Terminal terminal) {
    return List.of(
        new UpCommand(terminal),
        new ReplayCommand(terminal),
        new ReconstructCommand(terminal),
        new AnalyzeCommand(terminal),
        new EraseCommand(terminal),
        new ComposeSmokeCommand(terminal));
  }

  int run(String[] args) {
    if (args.length == 0) {
      err.print(usage());
      return Command.USAGE;
    }
    String name = args[0];
    if (name.equals("--help") || name.equals("-h")) {
      out.print(usage());
      return Command.OK;
    }
    if (name.equals("--version")) {
      out.println("prefixlog " + Version.current());
      return Command.OK;
    }
    Optional<Command> command = find(name);
    if (command.isEmpty()) {
      err.println(
          "prefixlog: unknown command '"
              + name
              + "' (commands: "
              + names()
              + "; see prefixlog help)");
      return Command.USAGE;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      return command.get().run(rest);
    } catch (RuntimeException e) {
      // Commands report their own failures; this is a bug, shown with its trace.
      err.println("prefixlog " + name + ": unexpected error: " + e);
      e.printStackTrace(err);
      return Command.FAILED;
    }
  }

  private Optional<Command> find(String name) {
    return commands.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  private String names() {
    return String.join(", ", commands.stream().map(Command::name).toList());
  }

  private String usage() {
    StringBuilder s = new StringBuilder();
    s.append("prefixlog ").append(Version.current()).append('\n');
    s.append("Usage: prefixlog <command> [options]\n\nCommands:\n");
    int width = commands.stream().mapToInt(c -> c.name().length()).max().orElse(0);
    for (Command command : commands) {
      s.append("  ")
          .append(command.name())
          .append(" ".repeat(width - command.name().length() + 2))
          .append(command.summary())
          .append('\n');
    }
    s.append("\nprefixlog <command> --help lists a command's options and their defaults.\n");
    return s.toString();
  }

  /** {@code prefixlog help [command]}. */
  private final class Help implements Command {
    @Override
    public String name() {
      return "help";
    }

    @Override
    public String summary() {
      return "Show the commands, or one command's options: prefixlog help <command>.";
    }

    @Override
    public int run(String[] args) {
      if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
        out.print(usage());
        return OK;
      }
      if (args.length > 1) {
        err.println("prefixlog help: expected at most one command name, got " + args.length);
        return USAGE;
      }
      Optional<Command> command = find(args[0]);
      if (command.isEmpty() || command.get() == this) {
        if (command.isPresent()) {
          out.print(usage());
          return OK;
        }
        err.println(
            "prefixlog help: unknown command '" + args[0] + "' (commands: " + names() + ")");
        return USAGE;
      }
      return command.get().run(new String[] {"--help"});
    }
  }
}
