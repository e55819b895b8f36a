package io.prefixlog.benchmarks.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyTargetsTest {
  private static Map<String, ColdStart.Summary> regime(
      ColdStart.Summary nginx, ColdStart.Summary prefixlog) {
    Map<String, ColdStart.Summary> m = new LinkedHashMap<>();
    m.put("nginx", nginx);
    m.put("prefixlog", prefixlog);
    return m;
  }

  @Test
  void eachGoalIsJudgedAgainstItsOwnBoundAndNginxFromTheSameRegime() {
    // Given a first minute at +0.9 ms p99 (met: ≤ 1) and a warm regime at +0.9 ms (not: ≤ 0.5),
    // a cold CPU of exactly 2× nginx's (met) and a warm one of 2.5× (not), one dropped event warm
    Map<String, ColdStart.Summary> cold =
        regime(new ColdStart.Summary(0.1, 0.2, 50, -1), new ColdStart.Summary(0.3, 0.9, 100, 0));
    Map<String, ColdStart.Summary> warm =
        regime(new ColdStart.Summary(0.1, 0.2, 40, -1), new ColdStart.Summary(0.31, 0.9, 100, 1));

    // When
    List<ProxyTargets.Verdict> verdicts = ProxyTargets.of(cold, warm).verdicts();

    // Then
    assertThat(verdicts)
        .extracting(
            ProxyTargets.Verdict::goal, ProxyTargets.Verdict::figure, ProxyTargets.Verdict::met)
        .containsExactly(
            tuple("first minute: added p99 ≤ 1.0 ms", "+0.90 ms", true),
            tuple("first minute: added p50 ≤ 0.3 ms", "+0.30 ms", true),
            tuple("first minute: CPU per request ≤ 2× nginx's", "100 µs (2.0×)", true),
            tuple("first minute: nothing dropped from capture", "0 dropped", true),
            tuple("warm: added p99 ≤ 0.5 ms", "+0.90 ms", false),
            tuple("warm: added p50 ≤ 0.3 ms", "+0.31 ms", false),
            tuple("warm: CPU per request ≤ 2× nginx's", "100 µs (2.5×)", false),
            tuple("warm: nothing dropped from capture", "1 dropped", false));
  }

  @Test
  void aRegimeNotRunOrAFigureNotKnownIsNeverCountedAsMet() {
    // Given only a cold run, without nginx and without capture counters
    Map<String, ColdStart.Summary> cold = new LinkedHashMap<>();
    cold.put("prefixlog-aot", new ColdStart.Summary(0.1, 0.1, 10, -1));

    // When
    List<ProxyTargets.Verdict> verdicts = ProxyTargets.of(cold, null).verdicts();

    // Then: four cold goals, no warm ones; the CPU ratio and the drops are unknown, not met
    assertThat(verdicts).hasSize(4);
    assertThat(verdicts)
        .filteredOn(v -> !v.known())
        .extracting(ProxyTargets.Verdict::goal)
        .containsExactly(
            "first minute: CPU per request ≤ 2× nginx's",
            "first minute: nothing dropped from capture");
    assertThat(verdicts).filteredOn(v -> !v.known()).noneMatch(ProxyTargets.Verdict::met);
  }
}
