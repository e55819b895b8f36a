package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ReplayHeadersTest {
  @Test
  void shouldKeepTheSessionHeadersAndDropHopsRequestIdsAndAnythingLikeACredential() {
    // Given
    Map<String, String> captured = new TreeMap<>();
    captured.put("x-session-id", "conv-1");
    captured.put("X-Conversation-ID", "c-2");
    captured.put("openai-project", "p");
    captured.put("x-request-id", "r");
    captured.put("x-forwarded-for", "10.0.0.1");
    captured.put("forwarded", "for=10.0.0.1");
    captured.put("host", "engine:8000");
    captured.put("content-length", "12");
    captured.put("user-agent", "app/1");
    captured.put("x-api-key", "k");
    captured.put("x-my-auth", "k");
    captured.put("x-broken", "a\r\nInjected: b");
    captured.put("bad name", "v");

    // When
    Map<String, String> replayed = ReplayHeaders.replayable(captured);

    // Then
    assertThat(replayed)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("x-session-id", "conv-1", "x-conversation-id", "c-2", "openai-project", "p"));
    assertThat(ReplayHeaders.replayable(null)).isEmpty();
  }

  @Test
  void shouldSendTheSessionKeyUnderTheHeaderItCameFromWhenItsValueWasNotCaptured() {
    String key = "0123456789abcdef0123456789abcdef";

    // A capture without the header's value: the key stands in for it
    assertThat(ReplayHeaders.replayable(Map.of("openai-project", "p"), "header:X-Session-ID", key))
        .containsExactlyInAnyOrderEntriesOf(Map.of("x-session-id", key, "openai-project", "p"));
    // An older capture that has it: sent as captured
    assertThat(
            ReplayHeaders.replayable(Map.of("x-session-id", "conv-1"), "header:x-session-id", key))
        .containsExactlyEntriesOf(Map.of("x-session-id", "conv-1"));
    // A key from the body or the fallback: no header
    assertThat(ReplayHeaders.replayable(null, "fallback", key)).isEmpty();
    assertThat(ReplayHeaders.replayable(null, "header:x-api-key", key)).isEmpty();
  }
}
