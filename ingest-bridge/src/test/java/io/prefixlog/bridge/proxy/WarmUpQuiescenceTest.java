package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When the warm-up stops for a quiet JIT ({@code PREFIXLOG_PROXY_WARMUP_QUIET}): only once a whole
 * window has passed in which the JIT compiled for at most 5 % of it.
 */
class WarmUpQuiescenceTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void shouldBeQuietOnceAWholeWindowAddedAtMostFivePercentOfCompilation() {
    // Given: a 1 s window; the JIT compiles hard for 3 s, then 10 ms every 100 ms, then nothing
    WarmUp.Quiescence quiescence = new WarmUp.Quiescence(Duration.ofSeconds(1));
    long compile = 0;
    long firstQuiet = -1;

    // When: sampled every 100 ms
    for (long t = 0; t <= 6000 && firstQuiet < 0; t += 100) {
      compile += t < 3000 ? 100 : t < 4000 ? 10 : 0;
      if (quiescence.quietAfter(t * MS, compile)) {
        firstQuiet = t;
      }
    }

    // Then: the window ending at 4,300 ms still adds 60 ms (> 50 ms), the one ending at 4,400 ms
    // adds 50 ms
    assertThat(firstQuiet).isEqualTo(4400);
  }

  @Test
  void shouldNotBeQuietBeforeAWholeWindowHasPassed() {
    // Given: a 2 s window and a JIT that compiles nothing at all
    WarmUp.Quiescence quiescence = new WarmUp.Quiescence(Duration.ofSeconds(2));

    // When
    boolean at1900 = false;
    for (long t = 0; t <= 1900; t += 100) {
      at1900 = quiescence.quietAfter(t * MS, 500);
    }
    boolean at2000 = quiescence.quietAfter(2000 * MS, 500);

    // Then
    assertThat(at1900).isFalse();
    assertThat(at2000).isTrue();
  }

  @Test
  void shouldNeverBeQuietForAFixedWarmUpOrAJvmThatDoesNotTimeItsJit() {
    // Given
    WarmUp.Quiescence fixed = new WarmUp.Quiescence(Duration.ZERO);
    WarmUp.Quiescence untimed = new WarmUp.Quiescence(Duration.ofSeconds(1));

    // When
    boolean fixedQuiet = false;
    boolean untimedQuiet = false;
    for (long t = 0; t <= 5000; t += 100) {
      fixedQuiet |= fixed.quietAfter(t * MS, 0);
      untimedQuiet |= untimed.quietAfter(t * MS, -1);
    }

    // Then
    assertThat(fixedQuiet).isFalse();
    assertThat(untimedQuiet).isFalse();
  }
}
