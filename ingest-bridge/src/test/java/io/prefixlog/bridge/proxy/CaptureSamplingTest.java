package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.session.SessionSampler;
import java.util.List;
import org.junit.jupiter.api.Test;

class CaptureSamplingTest {
  private static final String PATH = "/v1/chat/completions";

  private static CaptureSampling sampling(double share) {
    return new CaptureSampling(
        new SessionSampler(share, "seed"), true, List.of("kept-model"), List.of("/v1/kept"), null);
  }

  @Test
  void shouldNeverKeepTheBodyOfARequestTheEngineRefused() {
    // Given: every session selected, and every force rule that would otherwise match
    CaptureSampling all = sampling(1.0);

    // Then
    assertThat(all.decide("s", "kept-model", "/v1/kept", 401, null))
        .isEqualTo(CaptureSampling.Decision.REFUSED);
    assertThat(all.decide("s", "m", PATH, 403, null)).isEqualTo(CaptureSampling.Decision.REFUSED);
    assertThat(sampling(0.0).decide("s", "m", PATH, 403, null))
        .isEqualTo(CaptureSampling.Decision.REFUSED);
  }

  @Test
  void shouldKeepOtherErrorsAsTheForceRulesSay() {
    CaptureSampling none = sampling(0.0);

    assertThat(none.decide("s", "m", PATH, 400, null)).isEqualTo(CaptureSampling.Decision.FORCED);
    assertThat(none.decide("s", "m", PATH, 429, null)).isEqualTo(CaptureSampling.Decision.FORCED);
    assertThat(none.decide("s", "m", PATH, null, "upstream_timeout"))
        .isEqualTo(CaptureSampling.Decision.FORCED);
    assertThat(none.decide("s", "m", PATH, 200, null))
        .isEqualTo(CaptureSampling.Decision.SAMPLED_OUT);
    assertThat(sampling(1.0).decide("s", "m", PATH, 200, null))
        .isEqualTo(CaptureSampling.Decision.SESSION_SELECTED);
  }
}
