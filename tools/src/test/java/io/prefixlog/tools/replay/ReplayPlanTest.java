package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayPlanTest {
  private static CapturedRequest request(String session, long seq, long ts, Double latencyMs) {
    return new CapturedRequest(
        session,
        seq,
        ts,
        "/v1/chat/completions",
        "chat m",
        Map.of(),
        new byte[] {'{', '}'},
        latencyMs,
        null,
        null);
  }

  @Test
  void shouldDivideTheCapturedGapsBySpeed() {
    // Given
    List<CapturedRequest> ordered =
        List.of(
            request("a", 1, 1_000, 10.0),
            request("b", 1, 1_250, 10.0),
            request("a", 2, 2_000, 10.0));

    // When
    ReplayPlan plan = ReplayPlan.of(ordered, 2);

    // Then
    assertThat(plan.steps())
        .extracting(ReplayPlan.Step::dueNanos)
        .containsExactly(0L, 125_000_000L, 500_000_000L);
    assertThat(plan.captureSpanMs()).isEqualTo(1_000);
    assertThat(plan.scheduledSpanNanos()).isEqualTo(500_000_000L);
    assertThat(ReplayPlan.of(ordered, 0.5).steps().get(2).dueNanos()).isEqualTo(2_000_000_000L);
  }

  @Test
  void shouldWaitForThePreviousAnswerOnlyWhereTheCaptureDid() {
    // Given: a2 began after a1's answer (100 + 40 <= 140); a3 overlapped a2 (parallel tool
    // calls); b2 has no captured latency but began later.
    List<CapturedRequest> ordered =
        List.of(
            request("a", 1, 100, 40.0),
            request("b", 1, 110, null),
            request("a", 2, 140, 500.0),
            request("a", 3, 150, 10.0),
            request("b", 2, 160, 5.0),
            request("b", 3, 160, 5.0));

    // When
    ReplayPlan plan = ReplayPlan.of(ordered, 1);

    // Then
    assertThat(plan.steps())
        .extracting(ReplayPlan.Step::after)
        .containsExactly(-1, -1, 0, -1, 1, -1);
  }

  @Test
  void shouldRefuseASpeedThatIsNotPositive() {
    assertThatThrownBy(() -> ReplayPlan.of(List.of(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 0.0");
  }
}
