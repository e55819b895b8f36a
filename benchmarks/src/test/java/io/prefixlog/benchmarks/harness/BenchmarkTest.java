package io.prefixlog.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchmarkTest {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "ToyBenchmark",
          "Counts to N.",
          List.of(Option.value("n", "N", "3", "How far to count (at most 10).")));

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final List<Long> ran = new ArrayList<>();

  private int run(String... args) throws Exception {
    return BENCHMARK.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        line -> Benchmark.atMost("n", line.longValue("n", 3, 1), 10),
        n -> {
          ran.add(n);
          return n == 7 ? 1 : 0;
        });
  }

  @Test
  void shouldRunTheBodyWithTheValuesReadAndReturnItsExitCode() throws Exception {
    assertThat(run()).isZero();
    assertThat(run("--n", "7")).isEqualTo(1);
    assertThat(ran).containsExactly(3L, 7L);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void shouldPrintTheHelpFromTheDeclarationWithoutRunning() throws Exception {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("ToyBenchmark", "Counts to N.", "--n", "How far to count (at most 10).");
    assertThat(ran).isEmpty();
  }

  @Test
  void shouldAnswerAUsageErrorWithTheNameAndExitTwoWithoutRunning() throws Exception {
    assertThat(run("--n", "11")).isEqualTo(2);
    assertThat(run("--bogus")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("ToyBenchmark: --n must be at most 10, got 11")
        .contains("ToyBenchmark: ")
        .contains("bogus");
    assertThat(ran).isEmpty();
  }

  @Test
  void shouldTitleTheOutputWithTheNameAndDescription() {
    assertThat(BENCHMARK.title()).isEqualTo("ToyBenchmark: Counts to N.");
  }

  @Test
  void shouldPassAValueUpToItsBound() throws UsageException {
    assertThat(Benchmark.atMost("points", 10_000L, 10_000)).isEqualTo(10_000);
    assertThat(Benchmark.atMost("alpha", 0.9, 10)).isEqualTo(0.9);
  }

  @Test
  void shouldNameTheOptionOfAValueAboveItsBound() {
    assertThatThrownBy(() -> Benchmark.atMost("points", 20_000L, 10_000))
        .isInstanceOf(UsageException.class)
        .hasMessage("--points must be at most 10000, got 20000");
    assertThatThrownBy(() -> Benchmark.atMost("sample-rate", 1.5, 1))
        .hasMessage("--sample-rate must be at most 1.0, got 1.5");
  }
}
