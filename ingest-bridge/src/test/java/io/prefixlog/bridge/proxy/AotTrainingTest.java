package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Which warm-ups make a training run of the image's AOT cache: the image build fails on the others
 * (AotTraining exits 1), rather than ship a cache trained on a broken request path.
 */
class AotTrainingTest {
  private static WarmUp.Result warmUp(long exchanges, long failures) {
    return new WarmUp.Result(exchanges, failures, Duration.ofSeconds(20), 5000, false);
  }

  @Test
  void shouldAcceptAWarmUpOfEnoughExchangesWithAtMostOnePercentFailed() {
    // Given: the least that passes, at both bounds
    WarmUp.Result warmUp = warmUp(WarmUp.MIN_EXCHANGES, WarmUp.MIN_EXCHANGES / 100);

    // When
    String problem = AotTraining.problem(warmUp);

    // Then
    assertThat(problem).isNull();
  }

  @Test
  void shouldRejectAWarmUpOfTooFewExchanges() {
    // Given
    WarmUp.Result warmUp = warmUp(WarmUp.MIN_EXCHANGES - 1, 0);

    // When
    String problem = AotTraining.problem(warmUp);

    // Then
    assertThat(problem).isEqualTo("only 999 exchanges (at least 1000)");
  }

  @Test
  void shouldRejectAWarmUpWithMoreThanOnePercentFailed() {
    // Given
    WarmUp.Result warmUp = warmUp(2000, 21);

    // When
    String problem = AotTraining.problem(warmUp);

    // Then
    assertThat(problem).isEqualTo("21 of 2000 exchanges failed");
  }

  @Test
  void shouldRejectAStartThatNeverRanTheWarmUp() {
    // When
    String problem = AotTraining.problem(null);

    // Then
    assertThat(problem).isEqualTo("the warm-up did not run");
  }

  @Test
  void shouldTrainOnProductionShapedTrafficUnlessTheWarmUpsIsAskedFor() {
    assertThat(AotTraining.shape("production")).isEqualTo(WarmUp.Shape.PRODUCTION);
    assertThat(AotTraining.shape("warm-up")).isEqualTo(WarmUp.Shape.WARM_UP);
    assertThatThrownBy(() -> AotTraining.shape("traffic"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown training shape 'traffic' (production or warm-up)");
  }

  @Test
  void shouldRunProductionShapedExchangesThroughTheProxyWithoutFailures() throws Exception {
    // Given: the proxy as AotTraining starts it (no broker, no engine), a 3 s production warm-up
    ProxyConfig config =
        ProxyConfig.defaults(URI.create("http://127.0.0.1:9"), "127.0.0.1:9")
            .withListen("127.0.0.1", 0)
            .with(MetricsConfig.PORT, -1)
            .with(WarmUpConfig.DURATION, Duration.ofSeconds(3))
            .with(WarmUpConfig.QUIET, Duration.ZERO);
    AtomicReference<WarmUp.Result> result = new AtomicReference<>();

    // When
    CaptureProxy.start(config, null, () -> true, result::set, WarmUp.Shape.PRODUCTION).close();

    // Then: exchanges ran, streamed and not (a failed stream or body would count), none failed.
    // Clients take turns and every other one streams, so 4 exchanges hold both kinds; 3 s ran 8
    // on a machine at a load of 14, hundreds on a quiet one.
    assertThat(result.get().exchanges()).isGreaterThanOrEqualTo(4);
    assertThat(result.get().failures()).isZero();
  }
}
