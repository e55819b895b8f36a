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
}
