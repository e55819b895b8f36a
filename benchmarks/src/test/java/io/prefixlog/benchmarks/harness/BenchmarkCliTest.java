package io.prefixlog.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchmarkCliTest {
  private static final List<Option> OPTIONS =
      List.of(
          Option.value("rounds", "N", "3", "Measured rounds."),
          Option.flag("quick", "Fewer turns."));

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @Test
  void shouldParseTheDeclaredOptions() throws UsageException {
    // When
    BenchmarkCli.Invocation invocation = parse("--rounds", "7", "--quick");

    // Then
    assertThat(invocation.proceed()).isTrue();
    assertThat(invocation.line().longValue("rounds", 3, 1)).isEqualTo(7);
    assertThat(invocation.line().has("quick")).isTrue();
  }

  @Test
  void shouldPrintTheGeneratedHelpAndStopWithZero() {
    // When
    BenchmarkCli.Invocation invocation = parse("--help");

    // Then
    assertThat(invocation.proceed()).isFalse();
    assertThat(invocation.exitCode()).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith("Usage: Bench [options]\n\nWhat it measures.\n\nOptions:\n")
        .contains("--rounds N", "Measured rounds.", "--quick");
  }

  @Test
  void shouldRefuseAnUnknownOptionWithExitTwoAndOneHint() {
    // When
    BenchmarkCli.Invocation invocation = parse("--round", "7");

    // Then
    assertThat(invocation.proceed()).isFalse();
    assertThat(invocation.exitCode()).isEqualTo(BenchmarkCli.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("Bench: ")
        .containsOnlyOnce("(see Bench --help)");
  }

  @Test
  void shouldNameTheOptionOfAValueAboveItsBound() {
    // When
    UsageException e = null;
    try {
      BenchmarkCli.atMost("points", 20_000L, 10_000);
    } catch (UsageException thrown) {
      e = thrown;
    }

    // Then
    assertThat(e).hasMessage("--points must be at most 10000, got 20000");
    assertThat(
            BenchmarkCli.usageError("Bench", e, new PrintStream(err, true, StandardCharsets.UTF_8)))
        .isEqualTo(BenchmarkCli.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("Bench: --points must be at most 10000, got 20000 (see Bench --help)\n");
  }

  private BenchmarkCli.Invocation parse(String... args) {
    return BenchmarkCli.parse(
        "Bench",
        "What it measures.",
        OPTIONS,
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }
}
