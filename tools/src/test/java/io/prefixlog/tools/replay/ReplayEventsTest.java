package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayEventsTest {
  private static final String SECRET = "0123456789abcdef-test-secret";

  @Test
  void shouldDeriveTheSessionKeyTheCaptureDerivesFromTheSessionHeader() {
    // Given
    ReplayEvents events = new ReplayEvents(SECRET, "1.2.3");
    SessionKeyDeriver capture =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);

    // When
    SessionKey key = events.sessionKey("conv-1");

    // Then: what the bridge derives for any request carrying the header, whatever else it sees
    assertThat(key)
        .isEqualTo(
            capture.derive(
                Map.of("x-session-id", "conv-1"),
                new BodyFields("other-model", null, "someone", false),
                "10.0.0.9",
                "curl/8"));
    assertThat(key.source()).isEqualTo("header:x-session-id");
    assertThat(key.key()).hasSize(32).doesNotContain("conv-1");
  }

  @Test
  void shouldBuildTheRawEventOfOneTurnWithoutAResponse() {
    // Given
    ReplayEvents events = new ReplayEvents(SECRET, "1.2.3");
    byte[] body =
        "{\"model\":\"m1\",\"messages\":[{\"role\":\"user\",\"content\":\"héllo 👋\"}]}"
            .getBytes(StandardCharsets.UTF_8);
    SessionKey key = events.sessionKey("conv-1");

    // When
    RawRequestEvent event = events.event(new ChatRequest("conv-1", 1, body), key, "rid", 42L);

    // Then
    assertThat(event)
        .isEqualTo(
            new RawRequestEvent(
                1,
                "rid",
                42L,
                key.key(),
                "header:x-session-id",
                "127.0.0.1",
                "prefixlog-replay/1.2.3",
                Map.of("x-session-id", "conv-1"),
                "POST",
                "/v1/chat/completions",
                "m1",
                new String(body, StandardCharsets.UTF_8),
                "utf-8",
                (long) body.length,
                Sha256.hex(body),
                false,
                null,
                null,
                null,
                null,
                null,
                null,
                null));
  }

  @Test
  void shouldDeriveTheKeyTheCaptureDerivesForAClientWithoutASessionHeader() {
    // Given: two turns of one conversation and the first turn of another
    ReplayEvents events = new ReplayEvents(SECRET, "1.2.3", false);
    SessionKeyDeriver capture =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);
    byte[] turn1 = utf8("{\"model\":\"m1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    byte[] turn2 =
        utf8(
            "{\"model\":\"m1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"assistant\",\"content\":\"hello\"},"
                + "{\"role\":\"user\",\"content\":\"more\"}]}");
    byte[] other =
        utf8("{\"model\":\"m1\",\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}");

    // When
    SessionKey first = events.sessionKey(new ChatRequest("conv-1", 1, turn1));
    SessionKey second = events.sessionKey(new ChatRequest("conv-1", 2, turn2));
    SessionKey another = events.sessionKey(new ChatRequest("conv-2", 1, other));
    RawRequestEvent event = events.event(new ChatRequest("conv-1", 1, turn1), first, "rid", 42L);

    // Then
    assertThat(first)
        .isEqualTo(
            capture.derive(
                Map.of(), BodyFields.read(turn1), "127.0.0.1", "prefixlog-replay/1.2.3"));
    assertThat(first.source()).isEqualTo("conversation");
    assertThat(second).isEqualTo(first);
    assertThat(another.key()).isNotEqualTo(first.key());
    assertThat(event.headers()).isNull();
    assertThat(event.sessionKeySource()).isEqualTo("conversation");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
