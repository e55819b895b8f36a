package io.prefixlog.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrefixlogTest {
  private final CapturedTerminal console = new CapturedTerminal();
  private final List<String> calls = new ArrayList<>();

  private final Command echo =
      new Command() {
        @Override
        public Spec spec() {
          return new Spec("echo", "Echo the arguments.", "Echoes the arguments.", List.of());
        }

        @Override
        public int run(String[] args) {
          calls.add(String.join(" ", args));
          return args.length;
        }
      };

  private int run(String... args) {
    Terminal terminal = console.terminal();
    return new Prefixlog(List.of(echo), terminal.out(), terminal.err()).run(args);
  }

  @Test
  void shouldDispatchToTheNamedCommandWithTheRestOfTheArguments() {
    // When
    int code = run("echo", "--a", "b");

    // Then
    assertThat(code).isEqualTo(2);
    assertThat(calls).containsExactly("--a b");
  }

  @Test
  void shouldListTheCommandsWithTheirSummaries() {
    // When
    int code = run("help");

    // Then
    assertThat(code).isZero();
    assertThat(console.out())
        .endsWith(
            "Usage: prefixlog <command> [options]\n\n"
                + "Commands:\n"
                + "  echo        Echo the arguments.\n"
                + "  help        Show the commands, or one command's options: prefixlog help"
                + " <command>.\n"
                + "  completion  Print a bash/zsh completion script: source <(bin/prefixlog"
                + " completion).\n\n"
                + "prefixlog <command> --help lists a command's options and their defaults.\n");
  }

  @Test
  void shouldPrintACompletionScriptNamingTheCommandsAndTheirOptions() {
    // When
    Terminal terminal = console.terminal();
    int code =
        new Prefixlog(Prefixlog.commands(terminal), terminal.out(), terminal.err())
            .run(new String[] {"completion"});

    // Then: picocli's bash script, completing every command and its options
    String script = console.out();
    assertThat(code).isZero();
    assertThat(script).contains("complete -F _complete_prefixlog", "up", "reconstruct", "erase");
    assertThat(script).contains("--bootstrap", "--via-proxy", "--session", "--demo");
  }

  @Test
  void shouldShowACommandsHelpThroughHelp() {
    // When
    int code = run("help", "echo");

    // Then: the command's help, printed without running the command
    assertThat(code).isZero();
    assertThat(calls).isEmpty();
    assertThat(console.out()).isEqualTo(echo.help());
  }

  @Test
  void shouldNameAnUnknownCommand() {
    // When
    int code = run("replai");

    // Then
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog: unknown command 'replai' (commands: echo, help, completion; see prefixlog"
                + " help)\n");
  }

  @Test
  void shouldPrintUsageOnStderrWithoutArguments() {
    assertThat(run()).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("Usage: prefixlog <command>");
  }

  @Test
  void shouldHaveEveryCommandInItsTable() {
    assertThat(Prefixlog.commands(console.terminal()).stream().map(Command::name))
        .containsExactly(
            "up",
            "replay",
            "reconstruct",
            "analyze",
            "export",
            "erase",
            "archive",
            "ui",
            "settings",
            "compose-smoke");
  }
}
