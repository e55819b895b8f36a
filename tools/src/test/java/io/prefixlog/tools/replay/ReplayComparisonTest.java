package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayComparisonTest {
  private static CapturedRequest request(
      String cls, long ts, Double latency, Long prompt, Long cached) {
    return new CapturedRequest(
        "s" + ts,
        1,
        ts,
        "/v1/chat/completions",
        cls,
        Map.of(),
        new byte[1],
        latency,
        prompt,
        cached);
  }

  @Test
  void shouldCompareRatesOverTheRequestsBothSidesKnow() {
    // Given: three chat requests and a completion; the third chat request failed in the replay,
    // the completion's capture has no usage.
    ReplayPlan plan =
        ReplayPlan.of(
            List.of(
                request("chat m", 0, 10.0, 100L, 50L),
                request("chat m", 1, 20.0, 300L, 150L),
                request("chat m", 2, 30.0, 1_000L, 1_000L),
                request("completions m", 3, null, null, null)),
            1);
    CaptureReplay.Outcome outcome =
        new CaptureReplay.Outcome(
            4,
            new int[] {200, 200, 503, 200},
            new long[] {5_000_000, 7_000_000, 1_000_000, 2_000_000},
            new long[4],
            new AnswerUsage[] {
              new AnswerUsage(100, 80), new AnswerUsage(300, 100), null, new AnswerUsage(40, 0)
            },
            1,
            null);

    // When
    ReplayComparison comparison = ReplayComparison.of(plan, outcome);

    // Then
    assertThat(comparison.rows())
        .extracting(ReplayComparison.Row::name)
        .containsExactly("chat m", "completions m", "all");
    ReplayComparison.Row chat = comparison.rows().get(0);
    assertThat(chat.requests()).isEqualTo(3);
    assertThat(chat.answered()).isEqualTo(2);
    assertThat(chat.compared()).isEqualTo(2);
    assertThat(chat.originalRate()).isEqualTo(50.0);
    assertThat(chat.replayRate()).isEqualTo(45.0);
    assertThat(chat.differencePoints()).isEqualTo(-5.0);
    assertThat(chat.originalLatencyMs()).containsExactly(10.0, 20.0, 30.0);
    assertThat(chat.replayLatencyMs()).containsExactly(5.0, 7.0);
    ReplayComparison.Row all = comparison.overall();
    assertThat(all.requests()).isEqualTo(4);
    assertThat(all.answered()).isEqualTo(3);
    assertThat(all.replayLatencyMs()).containsExactly(2.0, 5.0, 7.0);
    assertThat(comparison.rows().get(1).originalRate()).isNaN();

    ByteArrayOutputStream text = new ByteArrayOutputStream();
    comparison.print(new PrintStream(text, true, StandardCharsets.UTF_8));
    assertThat(text.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            String.join(
                "\n",
                "  class                     requests     latency p50/p90/p99 ms  cached / prompt"
                    + " tokens (rate)",
                "  chat m         original          3         20.0 / 30.0 / 30.0  200 / 400 (50.0 %)",
                "                 replay            2            5.0 / 7.0 / 7.0  180 / 400 (45.0 %)"
                    + "  -5.0 points",
                "  completions m  original          1                          -  not reported",
                "                 replay            1            2.0 / 2.0 / 2.0  not reported",
                "  all            original          4         20.0 / 30.0 / 30.0  200 / 400 (50.0 %)",
                "                 replay            3            5.0 / 7.0 / 7.0  180 / 400 (45.0 %)"
                    + "  -5.0 points",
                ""));
  }

  @Test
  void shouldTakeNearestRankPercentiles() {
    double[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertThat(ReplayComparison.percentile(sorted, 0.5)).isEqualTo(5);
    assertThat(ReplayComparison.percentile(sorted, 0.9)).isEqualTo(9);
    assertThat(ReplayComparison.percentile(sorted, 0.99)).isEqualTo(10);
    assertThat(ReplayComparison.percentile(new double[0], 0.5)).isNaN();
  }
}
