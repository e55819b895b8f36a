package io.prefixlog.tools.up;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Parts}: the order {@code up} stops its parts in, and what it reports when that fails. */
class PartsTest {
  private final List<String> closed = new ArrayList<>();

  /** A part that records its close, then fails it when given a failure. */
  private Part part(String name, RuntimeException failure) {
    return () -> {
      closed.add(name);
      if (failure != null) {
        throw failure;
      }
    };
  }

  @Test
  void shouldCloseEveryPartInReverseOrderOfStartWithLaterFailuresSuppressed() throws Exception {
    // Given
    RuntimeException brokerFailure = new IllegalStateException("broker did not stop");
    RuntimeException appFailure = new IllegalStateException("stream app did not stop");
    Parts parts = new Parts();
    parts.start(() -> part("broker", brokerFailure));
    parts.start(() -> part("stream app", appFailure));
    parts.start(() -> part("bridge", null));

    // When, Then
    assertThatThrownBy(parts::close)
        .isSameAs(appFailure)
        .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(brokerFailure));
    assertThat(closed).containsExactly("bridge", "stream app", "broker");
  }

  @Test
  void shouldCloseNothingTwice() throws Exception {
    // Given
    Parts parts = new Parts();
    parts.start(() -> part("broker", null));
    parts.start(() -> part("stream app", null));
    parts.close();

    // When
    parts.close();
    parts.closeAfter(new IllegalStateException("a later failure"));

    // Then
    assertThat(closed).containsExactly("stream app", "broker");
  }

  @Test
  void shouldCloseTheStartedPartsInReverseOrderWhenAStartFails() throws Exception {
    // Given
    RuntimeException appFailure = new IllegalStateException("stream app did not stop");
    IOException archiveFailure = new IOException("the archive did not start");
    Parts parts = new Parts();
    parts.start(() -> part("broker", null));
    parts.start(() -> part("stream app", appFailure));

    // When, Then
    assertThatThrownBy(
            () ->
                parts.start(
                    () -> {
                      throw archiveFailure;
                    }))
        .isSameAs(archiveFailure)
        .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(appFailure));
    assertThat(closed).containsExactly("stream app", "broker");
  }

  @Test
  void shouldCloseAPartStartedAfterTheStackWasClosed() throws Exception {
    // Given: Ctrl-C while up is still starting its parts.
    Parts parts = new Parts();
    parts.start(() -> part("broker", null));
    parts.close();

    // When, Then
    assertThatThrownBy(() -> parts.start(() -> part("stream app", null)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stopping");
    assertThat(closed).containsExactly("broker", "stream app");
  }
}
