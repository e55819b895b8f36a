package io.prefixlog.tools;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Version;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.tools.analyze.AnalyzeCommand;
import io.prefixlog.tools.archive.ArchiveCommand;
import io.prefixlog.tools.erase.EraseCommand;
import io.prefixlog.tools.reconstruct.ExportCommand;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.settings.SettingsCommand;
import io.prefixlog.tools.smoke.ComposeSmokeCommand;
import io.prefixlog.tools.ui.UiCommand;
import io.prefixlog.tools.up.UpCommand;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import picocli.AutoComplete;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The {@code prefixlog} launcher ({@code bin/prefixlog}): {@code prefixlog <command> [options]}.
 * The commands of {@link #commands} are picocli subcommands of {@code prefixlog} (their options are
 * picocli option specs: {@link CommandLine#spec}); {@code help} and {@code completion} are added to
 * whatever is there. A command only reads its arguments into a typed request for its service; other
 * code in this JVM calls the service, never a command with an argument array.
 */
public final class Prefixlog {
  private final List<Command> commands;
  private final picocli.CommandLine tree;
  private final PrintStream out;
  private final PrintStream err;

  Prefixlog(List<Command> commands, PrintStream out, PrintStream err) {
    List<Command> all = new ArrayList<>(commands);
    all.add(new Help());
    all.add(new Completion());
    this.commands = List.copyOf(all);
    this.tree = new picocli.CommandLine(CommandSpec.create().name("prefixlog"));
    for (Command command : this.commands) {
      tree.addSubcommand(
          command.name(),
          new picocli.CommandLine(
              CommandLine.spec("prefixlog " + command.name(), command.options())));
    }
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
        new ExportCommand(terminal),
        new EraseCommand(terminal),
        new ArchiveCommand(terminal),
        new UiCommand(terminal),
        new SettingsCommand(terminal),
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
    } catch (ConfigException e) {
      // A setting from the environment, such as a PREFIXLOG_KAFKA_* pass-through: no trace.
      err.println("prefixlog " + name + ": " + e.getMessage());
      return Command.USAGE;
    } catch (RuntimeException e) {
      // Commands report their own failures; this is a bug, shown with its trace.
      err.println("prefixlog " + name + ": unexpected error: " + e);
      e.printStackTrace(err);
      return Command.FAILED;
    }
  }

  private Optional<Command> find(String name) {
    if (!tree.getSubcommands().containsKey(name)) {
      return Optional.empty();
    }
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
    public Spec spec() {
      return new Spec(
          "help",
          "Show the commands, or one command's options: prefixlog help <command>.",
          "Shows the commands, or one command's options.",
          List.of());
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
      out.print(command.get().help());
      out.flush();
      return OK;
    }
  }

  /** {@code prefixlog completion}: a bash (and zsh) completion script, generated by picocli. */
  private final class Completion implements Command {
    @Override
    public Spec spec() {
      return new Spec(
          "completion",
          "Print a bash/zsh completion script: source <(bin/prefixlog completion).",
          "Prints a bash completion script for prefixlog's commands and options.",
          List.of());
    }

    @Override
    public int run(String[] args) {
      if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
        out.println(
            "Usage: prefixlog completion\n\nPrints a bash completion script for prefixlog's"
                + " commands and options (zsh: after autoload -U +X bashcompinit && bashcompinit)."
                + "\nInstall: bin/prefixlog completion > /etc/bash_completion.d/prefixlog, or"
                + " source <(bin/prefixlog completion) in a shell.");
        return OK;
      }
      if (args.length > 0) {
        err.println("prefixlog completion: takes no arguments (see prefixlog completion --help)");
        return USAGE;
      }
      out.print(AutoComplete.bash("prefixlog", tree));
      return OK;
    }
  }
}
