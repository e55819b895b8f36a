package io.prefixlog.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A request's tenant, and the session keys it namespaces. */
class TenantSourceTest {
  private final SessionKeyDeriver keys =
      new SessionKeyDeriver(
          "a-deployment-secret-0123456789".getBytes(StandardCharsets.UTF_8),
          SessionKeyDeriver.DEFAULT_HEADERS);

  @Test
  void shouldTakeAHeadersNameAsItIsAndHashAnyOtherValue() {
    // Given
    TenantSource source = parse("header:X-Tenant");

    // When
    String named = source.tenantOf(Map.of("x-tenant", " team-a "), keys);
    String odd = source.tenantOf(Map.of("x-tenant", "team a/../b"), keys);
    String none = source.tenantOf(Map.of("x-session-id", "s"), keys);

    // Then
    assertThat(named).isEqualTo("team-a");
    assertThat(odd).matches("h-[0-9a-f]{24}");
    assertThat(none).isNull();
    assertThat(source.headerNames()).containsExactly("x-tenant");
  }

  @Test
  void shouldNameACredentialsTenantByItsKeyedHashWhateverHeaderCarriesIt() {
    // Given
    TenantSource source = parse("credential");

    // When
    String bearer = source.tenantOf(Map.of("authorization", "Bearer sk-team-a-key"), keys);
    String apiKey = source.tenantOf(Map.of("x-api-key", "sk-team-a-key"), keys);
    String other = source.tenantOf(Map.of("authorization", "Bearer sk-team-b-key"), keys);
    String none = source.tenantOf(Map.of(), keys);

    // Then: the same key is one tenant, and no part of it is in the id
    assertThat(bearer).matches("c-[0-9a-f]{24}").isEqualTo(apiKey).isNotEqualTo(other);
    assertThat(bearer).doesNotContain("sk-").doesNotContain("team");
    assertThat(none).isNull();
  }

  @Test
  void shouldGiveTheSameSessionIdOfTwoTenantsTwoKeysAndNoTenantTheKeysOfNone() {
    // Given
    Map<String, String> headers = Map.of("x-session-id", "conversation-42");

    // When
    String a = keys.derive("team-a", headers, BodyFields.EMPTY, "10.0.0.1", "sdk").key();
    String b = keys.derive("team-b", headers, BodyFields.EMPTY, "10.0.0.1", "sdk").key();
    String none = keys.derive(null, headers, BodyFields.EMPTY, "10.0.0.1", "sdk").key();

    // Then
    assertThat(a).isNotEqualTo(b).isNotEqualTo(none);
    assertThat(a).isEqualTo(keys.keyOfSessionId("team-a", "conversation-42"));
    assertThat(none)
        .isEqualTo(keys.keyOfSessionId("conversation-42"))
        .isEqualTo(keys.derive(headers, BodyFields.EMPTY, "10.0.0.1", "sdk").key());
  }

  @Test
  void shouldNamespaceEveryKindOfKey() {
    // Given: a user, a conversation and a fallback tuple, each in two tenants
    BodyFields user = BodyFields.read(utf8("{\"user\":\"alice\"}"));
    BodyFields chat =
        BodyFields.read(
            utf8("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"));

    // Then
    for (BodyFields body : new BodyFields[] {user, chat, BodyFields.EMPTY}) {
      assertThat(keys.derive("team-a", Map.of(), body, "10.0.0.1", "sdk").key())
          .isNotEqualTo(keys.derive("team-b", Map.of(), body, "10.0.0.1", "sdk").key());
    }
    assertThat(keys.keyOfUser("team-a", "alice"))
        .isEqualTo(keys.derive("team-a", Map.of(), user, null, null).key())
        .isNotEqualTo(keys.keyOfUser("alice"));
  }

  @Test
  void shouldRefuseSettingsThatWouldKeyTenantsByACapturedOrUnknownHeader() {
    assertThat(parse("none").enabled()).isFalse();
    assertThat(parse("").enabled()).isFalse();
    assertThatThrownBy(() -> parse("header:authorization"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("use `credential`");
    assertThatThrownBy(() -> parse("header:bad name")).isInstanceOf(ConfigException.class);
    assertThatThrownBy(() -> parse("ip")).isInstanceOf(ConfigException.class);
    assertThatThrownBy(() -> keys.keyOfSessionId("a@b", "s"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static TenantSource parse(String raw) {
    return TenantSource.SETTING.type().parse(TenantSource.SETTING.name(), raw);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
