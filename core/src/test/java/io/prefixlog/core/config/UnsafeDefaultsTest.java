package io.prefixlog.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.session.SessionKeyDeriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UnsafeDefaultsTest {
  private static final String STRONG = "9f2c4e1a7b3d8e6f0a5c2b9d4e7f1a3c";

  @ParameterizedTest
  @ValueSource(
      strings = {
        SessionKeyDeriver.DEV_SECRET,
        "change-me-compose-session-secret",
        "prefixlog-dev-secret",
        "minioadmin",
        "Please-CHANGE-ME-before-prod",
        "my-placeholder-secret-value",
        "aaaaaaaaaaaaaaaaaaaaaaaa",
        "",
        "   "
      })
  void shouldTakeKnownAndMarkedValuesForPlaceholders(String value) {
    assertThat(UnsafeDefaults.isPlaceholder(value)).isTrue();
  }

  @Test
  void shouldTakeARandomValueForARealOne() {
    assertThat(UnsafeDefaults.isPlaceholder(STRONG)).isFalse();
    assertThat(UnsafeDefaults.isPlaceholder(null)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"})
  void shouldRecognizeLoopback(String host) {
    assertThat(UnsafeDefaults.isLoopback(host)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.0.0.0", "::", "10.1.2.3", "192.168.0.7", "no-such-host.invalid", ""})
  void shouldTakeTheWildcardPrivateAddressesAndUnknownNamesForReachable(String host) {
    assertThat(UnsafeDefaults.isLoopback(host)).isFalse();
  }

  @Test
  void shouldRefuseAPlaceholderBeyondLoopbackNamingTheVariableButNotTheValue() {
    assertThatThrownBy(
            () ->
                UnsafeDefaults.refuseBeyondLoopback(
                    "PREFIXLOG_SESSION_SECRET",
                    SessionKeyDeriver.DEV_SECRET,
                    "0.0.0.0",
                    "PREFIXLOG_PROXY_HOST=0.0.0.0",
                    "Set it to a random value."))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("PREFIXLOG_SESSION_SECRET is unset")
        .hasMessageContaining("PREFIXLOG_PROXY_HOST=0.0.0.0")
        .hasMessageContaining("Set it to a random value.")
        .hasMessageNotContaining(SessionKeyDeriver.DEV_SECRET);
  }

  @Test
  void shouldAllowAPlaceholderOnLoopbackAndARealValueAnywhere() {
    assertThatCode(
            () ->
                UnsafeDefaults.refuseBeyondLoopback(
                    "V", SessionKeyDeriver.DEV_SECRET, "127.0.0.1", "H=127.0.0.1", ""))
        .doesNotThrowAnyException();
    assertThatCode(() -> UnsafeDefaults.refuseBeyondLoopback("V", STRONG, "0.0.0.0", "H", ""))
        .doesNotThrowAnyException();
  }

  @Test
  void shouldReadTheHostOfAUrl() {
    assertThat(UnsafeDefaults.hostOf("http://minio:9000")).isEqualTo("minio");
    assertThat(UnsafeDefaults.hostOf("http://127.0.0.1:9000/x")).isEqualTo("127.0.0.1");
    assertThat(UnsafeDefaults.hostOf("not a url")).isNull();
  }
}
