package io.prefixlog.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The keys an erasure looks up are the keys the proxy derived for the same signals. */
class SessionKeyDeriverTest {
  private final SessionKeyDeriver deriver =
      new SessionKeyDeriver(
          "a-deployment-secret-0123456789".getBytes(StandardCharsets.UTF_8),
          SessionKeyDeriver.DEFAULT_HEADERS);

  @Test
  void shouldGiveAnIdTheKeyItsHeaderAndItsBodyFieldGet() {
    // Given
    String id = "conversation-42";
    BodyFields inBody = BodyFields.read(utf8("{\"session_id\":\"" + id + "\"}"));

    // When
    String looked = deriver.keyOfSessionId(id);

    // Then
    assertThat(looked)
        .isEqualTo(derive(Map.of("x-conversation-id", id), BodyFields.EMPTY))
        .isEqualTo(derive(Map.of(), inBody))
        .hasSize(SessionKeyDeriver.KEY_HEX_CHARS);
  }

  @Test
  void shouldGiveAUserTheKeyOfTheBodysUserField() {
    // Given
    BodyFields inBody = BodyFields.read(utf8("{\"user\":\"alice\"}"));

    // When
    String looked = deriver.keyOfUser("alice");

    // Then
    assertThat(looked)
        .isEqualTo(derive(Map.of(), inBody))
        .isNotEqualTo(deriver.keyOfSessionId("alice"));
  }

  @Test
  void shouldGiveTheHmacOfTheNamespaceAndValueOnEveryCallAndThread() throws Exception {
    // Given: the HMAC computed here with a fresh Mac, as the deriver computed it before it
    // reused one Mac per thread
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(
        new javax.crypto.spec.SecretKeySpec(utf8("a-deployment-secret-0123456789"), "HmacSHA256"));
    mac.update(utf8("session"));
    mac.update((byte) 0);
    String expected =
        java.util.HexFormat.of().formatHex(mac.doFinal(utf8("conversation-42"))).substring(0, 32);

    // When: the same key asked between other keys, and from another thread
    String first = deriver.keyOfSessionId("conversation-42");
    deriver.keyOfUser("alice");
    String again = deriver.keyOfSessionId("conversation-42");
    java.util.concurrent.atomic.AtomicReference<String> other =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread thread = new Thread(() -> other.set(deriver.keyOfSessionId("conversation-42")));
    thread.start();
    thread.join();

    // Then
    assertThat(first).isEqualTo(expected);
    assertThat(again).isEqualTo(expected);
    assertThat(other.get()).isEqualTo(expected);
  }

  @Test
  void shouldKeepTheKeysOfHeadersSessionIdsAndUsersAsTheyWereWhenTheBodyIsAConversation() {
    // Given: one chat body with a system and a user message, sent with each signal in turn; the
    // keys pinned are those this deriver gave before conversations were told apart
    String start =
        "\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"You are terse.\"},"
            + "{\"role\":\"user\",\"content\":\"Hi\"}]";
    BodyFields plain = BodyFields.read(utf8("{" + start + "}"));
    BodyFields withUser = BodyFields.read(utf8("{" + start + ",\"user\":\"alice\"}"));
    BodyFields withSessionId =
        BodyFields.read(
            utf8("{" + start + ",\"session_id\":\"conversation-42\",\"user\":\"alice\"}"));

    // When
    SessionKey header =
        deriver.derive(Map.of("x-session-id", "conversation-42"), plain, "10.0.0.1", "agent/1");
    SessionKey sessionId = deriver.derive(Map.of(), withSessionId, "10.0.0.1", "agent/1");
    SessionKey user = deriver.derive(Map.of(), withUser, "10.0.0.1", "agent/1");

    // Then
    assertThat(plain.conversationAnchor()).hasSize(BodyFields.ANCHOR_BYTES);
    assertThat(header)
        .isEqualTo(new SessionKey("4040dc2d28d4ddc6783aa1c66255e043", "header:x-session-id"));
    assertThat(sessionId)
        .isEqualTo(new SessionKey("4040dc2d28d4ddc6783aa1c66255e043", "body:session_id"));
    assertThat(user).isEqualTo(new SessionKey("a5275d6661e694c4a51be077e3824e9c", "body:user"));
  }

  @Test
  void shouldKeepTheFallbackKeyOfABodyWithoutAConversationAsItWas() {
    // Given: a completion prompt (no messages); the key pinned is the one given before
    // conversations were told apart
    BodyFields completion = BodyFields.read(utf8("{\"model\":\"m\",\"prompt\":\"Hi\"}"));

    // When
    SessionKey key = deriver.derive(Map.of(), completion, "10.0.0.1", "agent/1");

    // Then
    assertThat(key).isEqualTo(new SessionKey("e623b297b0272f5acc83d8e39aad6168", "fallback"));
  }

  @Test
  void shouldTellWhetherAConfiguredSessionHeaderPicksTheKey() {
    // Given / When / Then: only a configured header with a value does
    assertThat(deriver.hasSessionHeader(Map.of("x-agent-session-id", "a"))).isTrue();
    assertThat(deriver.hasSessionHeader(Map.of("x-session-id", " "))).isFalse();
    assertThat(deriver.hasSessionHeader(Map.of("x-other-id", "a"))).isFalse();
    assertThat(deriver.hasSessionHeader(Map.of())).isFalse();
  }

  private String derive(Map<String, String> headers, BodyFields body) {
    return deriver.derive(headers, body, "10.0.0.1", "agent/1").key();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
