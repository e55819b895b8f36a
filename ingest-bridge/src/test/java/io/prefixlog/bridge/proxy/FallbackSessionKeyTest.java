package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.proxy.CaptureConfig.ClientAddrMode;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.TenantSource;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fallback session key (no session header, no session_id, no user) hashes the client address
 * with the model and user agent, and the conversation key the same with the start of the
 * conversation. Whoever knows the secret can enumerate every IPv4 address against such a key in
 * minutes, so the key must carry no more of the address than {@code PREFIXLOG_CLIENT_ADDR} lets the
 * event carry.
 */
class FallbackSessionKeyTest {
  private static final String SECRET = "fallback-test-secret-0123456789";
  private static final BodyFields BODY =
      BodyFields.read("{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8));
  private static final BodyFields CONVERSATION =
      BodyFields.read(
          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"
              .getBytes(StandardCharsets.UTF_8));

  @Test
  void shouldLeaveTheAddressOutOfTheKeyWhenAddressesAreOmitted() {
    // Given
    SessionKeys sessionKeys = keys(ClientAddrMode.OMIT);

    // When
    String a = key(sessionKeys, "203.0.113.7");
    String b = key(sessionKeys, "198.51.100.23");

    // Then: nothing of the address is in the key, so no secret recovers it from there
    assertThat(a).isEqualTo(b).isEqualTo(key(sessionKeys, null));
  }

  @Test
  void shouldKeyByTheTruncatedAddressWhenAddressesAreTruncated() {
    // Given
    SessionKeys sessionKeys = keys(ClientAddrMode.TRUNCATE);

    // When / Then: a /24 is all the key can give away
    assertThat(key(sessionKeys, "203.0.113.7")).isEqualTo(key(sessionKeys, "203.0.113.200"));
    assertThat(key(sessionKeys, "203.0.113.7")).isNotEqualTo(key(sessionKeys, "203.0.114.7"));
  }

  @Test
  void shouldKeyByTheWholeAddressWhenItIsRecordedWhole() {
    // Given
    SessionKeys sessionKeys = keys(ClientAddrMode.FULL);

    // When / Then
    assertThat(key(sessionKeys, "203.0.113.7")).isNotEqualTo(key(sessionKeys, "203.0.113.200"));
  }

  @Test
  void shouldKeyAConversationByNoMoreOfTheAddressThanTheEventCarries() {
    // Given: one conversation from two addresses of one /24, and from another /24
    SessionKeys omit = keys(ClientAddrMode.OMIT);
    SessionKeys truncate = keys(ClientAddrMode.TRUNCATE);

    // When
    SessionKey omitted = conversationKey(omit, "203.0.113.7");

    // Then
    assertThat(omitted.source()).isEqualTo("conversation");
    assertThat(omitted).isEqualTo(conversationKey(omit, "198.51.100.23"));
    assertThat(conversationKey(truncate, "203.0.113.7"))
        .isEqualTo(conversationKey(truncate, "203.0.113.200"))
        .isNotEqualTo(conversationKey(truncate, "203.0.114.7"))
        .isNotEqualTo(omitted);
  }

  @Test
  void shouldReadTheConversationsStartOnlyWhenNoSessionHeaderPicksTheKey() {
    // Given
    SessionKeys sessionKeys = keys(ClientAddrMode.FULL);
    byte[] body =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"
            .getBytes(StandardCharsets.UTF_8);

    // When
    BodyFields headerless = sessionKeys.fields(Map.of(), body, body.length);
    BodyFields underHeader = sessionKeys.fields(Map.of("x-session-id", "s-1"), body, body.length);

    // Then
    assertThat(headerless).isEqualTo(CONVERSATION);
    assertThat(headerless.conversationAnchor()).isNotNull();
    assertThat(underHeader).isEqualTo(new BodyFields("m", null, null, false, null));
  }

  private static SessionKey conversationKey(SessionKeys sessionKeys, String address) {
    return sessionKeys.key(Map.of(), CONVERSATION, address, "agent/1.0");
  }

  private static String key(SessionKeys sessionKeys, String address) {
    return sessionKeys.key(Map.of(), BODY, address, "agent/1.0").key();
  }

  private static SessionKeys keys(ClientAddrMode mode) {
    return new SessionKeys(
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS),
        new ClientAddresses(mode, SECRET),
        SessionKeyDeriver.DEFAULT_HEADERS,
        TenantSource.NONE);
  }
}
