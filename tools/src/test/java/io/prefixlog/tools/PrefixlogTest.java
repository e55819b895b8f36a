package io.prefixlog.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrefixlogTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
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
    return new Prefixlog(
            List.of(echo),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
        .run(args);
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
    assertThat(out.toString(StandardCharsets.UTF_8))
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
    PrintStream stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
    int code =
        new Prefixlog(
                Prefixlog.commands(new Terminal(stdout, stderr, Map.of(), false)), stdout, stderr)
            .run(new String[] {"completion"});

    // Then: picocli's bash script, completing every command and its options
    String script = out.toString(StandardCharsets.UTF_8);
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
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(echo.help());
  }

  @Test
  void shouldNameAnUnknownCommand() {
    // When
    int code = run("replai");

    // Then
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "prefixlog: unknown command 'replai' (commands: echo, help, completion; see prefixlog"
                + " help)\n");
  }

  @Test
  void shouldPrintUsageOnStderrWithoutArguments() {
    assertThat(run()).isEqualTo(Command.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("Usage: prefixlog <command>");
  }

  @Test
  void shouldHaveEveryCommandInItsTable() {
    assertThat(
            Prefixlog.commands(
                    new io.prefixlog.cli.Terminal(
                        new PrintStream(out), new PrintStream(err), java.util.Map.of(), false))
                .stream()
                .map(Command::name))
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
