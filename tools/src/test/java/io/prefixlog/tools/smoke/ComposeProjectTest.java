package io.prefixlog.tools.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the smoke test takes a container for ready, and when for failed. */
class ComposeProjectTest {
  private static ComposeProject.Container container(
      String service, String status, int exitCode, String health) {
    return new ComposeProject.Container(
        "id", "p_" + service + "_1", service, status, exitCode, health);
  }

  @Test
  void shouldTakeAOneShotForReadyOnlyOnceItExitedZero() {
    assertThat(container("kafka-init", "running", 0, "").ready()).isFalse();
    assertThat(container("kafka-init", "exited", 0, "").ready()).isTrue();
    assertThat(container("kafka-init", "exited", 1, "").ready()).isFalse();
    assertThat(container("kafka-init", "exited", 1, "").failed()).isTrue();
  }

  @Test
  void shouldTakeAServiceForReadyWhenRunningAndHealthyIfItHasAHealthCheck() {
    assertThat(container("kafka", "running", 0, "starting").ready()).isFalse();
    assertThat(container("kafka", "running", 0, "healthy").ready()).isTrue();
    assertThat(container("demo", "running", 0, "").ready()).isTrue();
    assertThat(container("kafka", "running", 0, "unhealthy").failed()).isTrue();
    // A long-running service that exited has failed, whatever its code.
    assertThat(container("kafka", "exited", 0, "").failed()).isTrue();
  }
}
