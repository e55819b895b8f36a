package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeaderPolicyTest {
  @Test
  void shouldDropHopByHopAndConnectionListedHeadersWhenForwarding() {
    // Given
    MultiMap in = HttpHeaders.headers();
    in.add("Connection", "keep-alive, X-Hop")
        .add("Keep-Alive", "timeout=5")
        .add("Transfer-Encoding", "chunked")
        .add("TE", "trailers")
        .add("Upgrade", "h2c")
        .add("Proxy-Authorization", "Basic x")
        .add("X-Hop", "1")
        .add("Authorization", "Bearer sk")
        .add("Accept", "a")
        .add("Accept", "b");

    // When
    MultiMap out = HttpHeaders.headers();
    HeaderPolicy.copyEndToEnd(in, out);

    // Then
    assertThat(out.names()).containsExactlyInAnyOrder("Authorization", "Accept");
    assertThat(out.getAll("accept")).containsExactly("a", "b");
  }

  @Test
  void shouldCaptureOnlyAllowListedHeadersAndNeverCredentials() {
    // Given: an allow-list that (wrongly) names credentials; no session header
    HeaderPolicy policy =
        new HeaderPolicy(
            Set.of("x-request-id", "authorization", "x-api-key", "cookie", "x-auth-token"));
    MultiMap in = HttpHeaders.headers();
    in.add("X-Request-Id", "r")
        .add("X-Session-ID", "s")
        .add("Authorization", "Bearer sk")
        .add("X-Api-Key", "k")
        .add("Cookie", "c")
        .add("X-Auth-Token", "t")
        .add("User-Agent", "u");

    // When
    Map<String, String> captured = policy.capture(in);

    // Then
    assertThat(captured).containsExactlyInAnyOrderEntriesOf(Map.of("x-request-id", "r"));
    assertThat(new HeaderPolicy(Set.of("x-session-id")).capture(in))
        .containsExactlyInAnyOrderEntriesOf(Map.of("x-session-id", "s"));
  }

  @Test
  void shouldRecogniseCredentialHeaderNames() {
    for (String name :
        List.of(
            "Authorization",
            "proxy-authorization",
            "cookie",
            "set-cookie",
            "x-api-key",
            "api-key",
            "X-Goog-Api-Key",
            "anthropic-apikey",
            "x-access-token",
            "x-client-secret")) {
      assertThat(HeaderPolicy.isSecret(name)).as(name).isTrue();
    }
    for (String name : List.of("x-request-id", "x-session-id", "x-forwarded-for", "user-agent")) {
      assertThat(HeaderPolicy.isSecret(name)).as(name).isFalse();
    }
  }
}
