package io.prefixlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
  @Test
  void shouldRenderBarPercentCountRateAndEta() {
    // When: 250 of 1000 events in 2 s
    String line = Progress.render("replay", 250, 1000, 2_000_000_000L, "events", false);

    // Then
    assertThat(line)
        .isEqualTo("replay [######..................]  25%  250/1,000 events  125/s  ETA 0:06");
  }

  @Test
  void shouldLeaveOutRateAndEtaInTheFirstHalfSecond() {
    assertThat(Progress.render("replay", 10, 1000, 400_000_000L, "events", false))
        .isEqualTo("replay [........................]   1%  10/1,000 events");
  }

  @Test
  void shouldRenderOnlyCountAndRateWithoutATotal() {
    assertThat(Progress.render("read", 3_500_000, 0, 1_000_000_000L, "MB", true))
        .isEqualTo("read 3.5 MB  3.5 MB/s");
  }

  @Test
  void shouldFormatDurations() {
    assertThat(Progress.duration(59)).isEqualTo("0:59");
    assertThat(Progress.duration(3599)).isEqualTo("59:59");
    assertThat(Progress.duration(3600 + 62)).isEqualTo("1:01:02");
  }

  @Test
  void shouldRedrawAtMostFiveTimesASecondAndClearTheLineOnClose() {
    // Given
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    AtomicLong now = new AtomicLong();
    Progress progress = Progress.withClock(new PrintStream(err, true), "p", 10, "x", now::get);

    // When
    progress.update(1); // drawn
    now.addAndGet(100_000_000L);
    progress.update(2); // too soon
    now.addAndGet(500_000_000L);
    progress.update(3); // drawn
    progress.close();

    // Then
    String first = "p [##......................]  10%  1/10 x";
    String second = "p [#######.................]  30%  3/10 x  5/s  ETA 0:01";
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("\r" + first + "\r" + second + "\r" + " ".repeat(second.length()) + "\r");
  }

  @Test
  void shouldPrintNothingWhenStderrIsNotATerminalAndNotForced() {
    // Given
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Terminal terminal =
        new Terminal(
            new PrintStream(new ByteArrayOutputStream()), new PrintStream(err), Map.of(), false);

    // When
    try (Progress progress = Progress.counting(terminal, false, "p", 10, "x")) {
      progress.update(5);
    }

    // Then
    assertThat(err.size()).isZero();
  }
}
