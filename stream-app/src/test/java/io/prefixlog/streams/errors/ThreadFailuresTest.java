package io.prefixlog.streams.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThreadFailuresTest {
  @Test
  void shouldGiveUpOnlyWhenTheLimitIsReachedWithinTheWindow() {
    // Given: 3 failures within 10 minutes
    AtomicLong now = new AtomicLong(0);
    ThreadFailures failures = new ThreadFailures(3, Duration.ofMinutes(10), now::get);
    List<Boolean> answers = new ArrayList<>();

    // When: two early failures expire before the third, then three come in a row
    for (long minute : new long[] {0, 5, 15, 16, 17}) {
      now.set(Duration.ofMinutes(minute).toMillis());
      answers.add(failures.record(new IllegalStateException("x")));
      if (minute == 15) {
        assertThat(failures.problem()).isEmpty();
      }
    }

    // Then
    assertThat(answers).containsExactly(false, false, false, false, true);
    assertThat(failures.problem())
        .contains(
            "stream threads failed 3 times within PT10M (PREFIXLOG_THREAD_FAILURE_LIMIT=3);"
                + " last: java.lang.IllegalStateException; the app stopped instead of replacing"
                + " them");
  }
}
