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

  private String derive(Map<String, String> headers, BodyFields body) {
    return deriver.derive(headers, body, "10.0.0.1", "agent/1").key();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
