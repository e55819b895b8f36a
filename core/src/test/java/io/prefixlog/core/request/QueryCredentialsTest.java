package io.prefixlog.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueryCredentialsTest {
  private final QueryCredentials defaults = QueryCredentials.defaults();

  @Test
  void shouldRemoveTheKeysEnginesAndCloudsTakeInTheQuery() {
    assertThat(defaults.strip("/v1beta/models/m:generateContent?key=AIzaSECRET").target())
        .isEqualTo("/v1beta/models/m:generateContent");
    assertThat(
            defaults
                .strip(
                    "/openai/deployments/d/chat/completions?api-version=2024-06-01&api-key=SECRET")
                .target())
        .isEqualTo("/openai/deployments/d/chat/completions?api-version=2024-06-01");
    assertThat(defaults.strip("/v1/x?access_token=SECRET&a=1&X-Amz-Signature=SECRET&b=2"))
        .isEqualTo(new QueryCredentials.Stripped("/v1/x?a=1&b=2", 2));
  }

  @Test
  void shouldMatchNamesWithoutRegardToCaseOrPercentEncoding() {
    assertThat(defaults.strip("/v1/x?KEY=SECRET&Api%2DKey=SECRET&ok=1").target())
        .isEqualTo("/v1/x?ok=1");
    assertThat(defaults.strip("/v1/x?my_refresh_token=SECRET").target()).isEqualTo("/v1/x");
  }

  @Test
  void shouldKeepEveryOtherByteAsTheClientSentIt() {
    // Given: an odd but valid query (an empty pair, a name without value, escapes kept escaped)
    String target = "/v1/x?a=%20b&&flag&keyword=not-a-key&token&c=d%26e";

    // When
    QueryCredentials.Stripped stripped = defaults.strip(target);

    // Then: only the bare "token" went; "keyword" is not "key"
    assertThat(stripped.target()).isEqualTo("/v1/x?a=%20b&&flag&keyword=not-a-key&c=d%26e");
    assertThat(stripped.removed()).isEqualTo(1);
    assertThat(defaults.strip("/v1/models"))
        .isEqualTo(new QueryCredentials.Stripped("/v1/models", 0));
    assertThat(defaults.strip("/v1/x?a=1").target()).isEqualTo("/v1/x?a=1");
  }

  @Test
  void shouldTakeTheRulesGivenAndNoneWhenEmpty() {
    QueryCredentials custom = QueryCredentials.of(List.of("tenant_key", "x-*"));
    assertThat(custom.strip("/v1/x?tenant_key=S&X-Custom=S&key=kept").target())
        .isEqualTo("/v1/x?key=kept");
    assertThat(QueryCredentials.of(List.of()).strip("/v1/x?key=S").target())
        .isEqualTo("/v1/x?key=S");
  }

  @Test
  void shouldRefuseARuleThatCannotBeAParameterName() {
    assertThatThrownBy(() -> QueryCredentials.of(List.of("a=b")))
        .hasMessageContaining("'a=b' is not a query parameter name");
    assertThatThrownBy(() -> QueryCredentials.of(List.of(" ")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
