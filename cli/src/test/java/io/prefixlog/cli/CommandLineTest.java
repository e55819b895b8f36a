package io.prefixlog.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineTest {
  private static final List<Option> OPTIONS =
      List.of(
          Option.value("bootstrap", "HOST:PORT", "127.0.0.1:9092", "Kafka bootstrap servers."),
          Option.value("turns", "N", "all", "Stop after N events.").repeatable(),
          Option.value("rate", "R", "0", "Events per second."),
          Option.flag("quiet", "Say nothing."));

  @Test
  void shouldParseSpaceAndEqualsFormsFlagsAndRepeats() throws UsageException {
    // Given
    String[] args = {"--bootstrap=h:1", "--turns", "5", "--quiet", "--turns=7"};

    // When
    CommandLine line = CommandLine.parse("prefixlog x", OPTIONS, args);

    // Then
    assertThat(line.hostPort("bootstrap", "d:1")).isEqualTo("h:1");
    assertThat(line.values("turns")).containsExactly("5", "7");
    assertThat(line.longValue("turns", 0, 1)).isEqualTo(7);
    assertThat(line.has("quiet")).isTrue();
    assertThat(line.has("rate")).isFalse();
    assertThat(line.doubleValue("rate", 2.5, 0)).isEqualTo(2.5);
    assertThat(line.helpRequested()).isFalse();
  }

  @Test
  void shouldRecogniseHelpInBothForms() throws UsageException {
    assertThat(CommandLine.parse("x", OPTIONS, "-h").helpRequested()).isTrue();
    assertThat(CommandLine.parse("x", OPTIONS, "--help").helpRequested()).isTrue();
  }

  @Test
  void shouldNameTheBadOptionInEveryError() {
    assertThatThrownBy(() -> CommandLine.parse("prefixlog x", OPTIONS, "--bootstrapp", "h:1"))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "unknown option --bootstrapp (did you mean --bootstrap?) (see prefixlog x --help)");
    assertThatThrownBy(() -> CommandLine.parse("prefixlog x", OPTIONS, "--nope"))
        .hasMessage("unknown option --nope (see prefixlog x --help)");
    assertThatThrownBy(() -> CommandLine.parse("prefixlog x", OPTIONS, "--rate"))
        .hasMessage("--rate needs a value: --rate R");
    assertThatThrownBy(
            () -> CommandLine.parse("prefixlog x", OPTIONS, "--rate", "1", "--rate", "2"))
        .hasMessage("--rate is given more than once");
    assertThatThrownBy(() -> CommandLine.parse("prefixlog x", OPTIONS, "--quiet=yes"))
        .hasMessage("--quiet is a flag and takes no value");
    assertThatThrownBy(() -> CommandLine.parse("prefixlog x", OPTIONS, "file.jsonl"))
        .hasMessage(
            "unexpected argument 'file.jsonl' (options start with --; see prefixlog x --help)");
  }

  @Test
  void shouldRejectValuesOfTheWrongForm() throws UsageException {
    // Given
    CommandLine line =
        CommandLine.parse("x", OPTIONS, "--turns", "ten", "--rate", "-1", "--bootstrap", "host");

    // When / Then
    assertThatThrownBy(() -> line.longValue("turns", 0, 1))
        .hasMessage("--turns needs a whole number, got 'ten'");
    assertThatThrownBy(() -> line.doubleValue("rate", 0, 0))
        .hasMessage("--rate must be a number of at least 0, got -1");
    assertThatThrownBy(() -> line.hostPort("bootstrap", "d:1"))
        .hasMessage("--bootstrap needs HOST:PORT[,HOST:PORT...], got 'host'");
    assertThatThrownBy(
            () -> CommandLine.parse("x", OPTIONS, "--turns", "0").longValue("turns", 1, 1))
        .hasMessage("--turns must be at least 1, got 0");
  }

  @Test
  void shouldListEveryOptionWithItsDefaultInTheHelp() {
    // When
    String help = CommandLine.help("prefixlog x", "Does x.", OPTIONS);

    // Then
    assertThat(help)
        .isEqualTo(
            """
            Usage: prefixlog x [options]

            Does x.

            Options:
              --bootstrap HOST:PORT
                  Kafka bootstrap servers. Default: 127.0.0.1:9092.
              --turns N
                  Stop after N events. May be repeated. Default: all.
              --rate R
                  Events per second. Default: 0.
              --quiet
                  Say nothing.
              --help
                  Show this help and exit.
            """);
  }

  @Test
  void shouldInvokeWithTheReadValuePrintHelpOrReportAUsageErrorWithExitTwo() {
    // Given
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    CommandLine.Reader<Long> rounds = line -> line.longValue("rounds", 3, 1);
    List<Option> options = List.of(Option.value("rounds", "N", "3", "Rounds."));

    // When
    CommandLine.Invocation<Long> run =
        CommandLine.invoke("x", "Does x.", options, new String[] {"--rounds", "7"}, o, e, rounds);
    CommandLine.Invocation<Long> help =
        CommandLine.invoke("x", "Does x.", options, new String[] {"--help"}, o, e, rounds);
    CommandLine.Invocation<Long> bad =
        CommandLine.invoke("x", "Does x.", options, new String[] {"--rounds", "0"}, o, e, rounds);
    CommandLine.Invocation<Long> refused =
        CommandLine.invoke(
            "x",
            "Does x.",
            options,
            new String[0],
            o,
            e,
            line -> {
              throw new ConfigException("PREFIXLOG_X=1: expected more");
            });

    // Then
    assertThat(run.proceed()).isTrue();
    assertThat(run.value()).isEqualTo(7);
    assertThat(help.proceed()).isFalse();
    assertThat(help.exitCode()).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(CommandLine.help("x", "Does x.", options));
    assertThat(bad.proceed()).isFalse();
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("x: --rounds must be at least 1, got 0\nx: PREFIXLOG_X=1: expected more\n");
  }
}
