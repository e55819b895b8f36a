package io.prefixlog.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.tools.cli.UsageException;
import org.junit.jupiter.api.Test;

class BenchmarkCliTest {
  @Test
  void shouldPassAValueUpToItsBound() throws UsageException {
    assertThat(BenchmarkCli.atMost("points", 10_000L, 10_000)).isEqualTo(10_000);
    assertThat(BenchmarkCli.atMost("alpha", 0.9, 10)).isEqualTo(0.9);
  }

  @Test
  void shouldNameTheOptionOfAValueAboveItsBound() {
    assertThatThrownBy(() -> BenchmarkCli.atMost("points", 20_000L, 10_000))
        .isInstanceOf(UsageException.class)
        .hasMessage("--points must be at most 10000, got 20000");
    assertThatThrownBy(() -> BenchmarkCli.atMost("sample-rate", 1.5, 1))
        .hasMessage("--sample-rate must be at most 1.0, got 1.5");
  }
}
