package io.prefixlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CausesTest {
  @Test
  void shouldJoinTheMessagesOfTheChainLeavingOutRepeats() {
    // Given
    Exception root = new IllegalArgumentException("No resolvable bootstrap urls");
    Exception middle = new IllegalStateException("wrapped: No resolvable bootstrap urls", root);
    Exception top = new RuntimeException("Failed to construct kafka consumer", middle);

    // When / Then
    assertThat(Causes.describe(top))
        .isEqualTo("Failed to construct kafka consumer: wrapped: No resolvable bootstrap urls");
    assertThat(Causes.describe(new RuntimeException())).isEqualTo("RuntimeException");
  }
}
