package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientCaptureRateTest {
  @Test
  void shouldKeepEachClientWithinItsBudgetAndRefillWithCaptureTime() {
    // Given: 1,000 bytes a second, 3,000 at once
    ClientCaptureRate rate = new ClientCaptureRate(1_000, 3_000);

    // Then: a full bucket at first, a client's bytes taken from its own bucket only
    assertThat(rate.admits("a", 2_000, 10_000)).isTrue();
    assertThat(rate.admits("a", 2_000, 10_000)).isFalse();
    assertThat(rate.admits("b", 3_000, 10_000)).isTrue();
    // One second later 1,000 more; a refused body took nothing
    assertThat(rate.admits("a", 2_000, 11_000)).isTrue();
    // An exchange captured earlier than the last one refills nothing
    assertThat(rate.admits("a", 1, 10_500)).isFalse();
    // Refilled to the burst at most
    assertThat(rate.admits("a", 3_001, 100_000)).isFalse();
    assertThat(rate.admits("a", 3_000, 100_000)).isTrue();
  }

  @Test
  void shouldAdmitEverythingWithoutARate() {
    ClientCaptureRate off = new ClientCaptureRate(0, 1_024);

    assertThat(off.limits()).isFalse();
    assertThat(off.admits("a", Long.MAX_VALUE, 0)).isTrue();
  }
}
