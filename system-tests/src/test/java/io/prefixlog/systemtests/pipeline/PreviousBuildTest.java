package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PreviousBuildTest {

  @Test
  void shouldSayHowToFetchACommitThatTheCloneLacks() {
    // Given: a commit id no repository holds
    String absent = "0123456789abcdef0123456789abcdef01234567";

    // When / Then
    assertThatThrownBy(() -> PreviousBuild.of(absent))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "commit "
                + absent
                + ", the previous build the upgrade tests run, is not in the git"
                + " repository at ")
        .hasMessageEndingWith(
            ": fetch it with `git fetch origin "
                + absent
                + "` (in CI: check out with full history, e.g. actions/checkout's fetch-depth: 0)");
  }
}
