package io.prefixlog.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
  @TempDir Path dir;

  @Test
  void shouldParseDurationsSizesAndPassThroughKafkaSettings() {
    // Given
    Settings settings =
        Settings.of(
            Map.of(
                "A_TTL", "15m",
                "A_RETENTION", "7d",
                "A_PLAIN", "250",
                "A_SIZE", "16MiB",
                "A_KAFKA_SECURITY_PROTOCOL", "SSL",
                "A_KAFKA_SASL_MECHANISM", "PLAIN"));

    // Then
    assertThat(settings.duration("A_TTL", Duration.ZERO)).isEqualTo(Duration.ofMinutes(15));
    assertThat(settings.duration("A_RETENTION", Duration.ZERO)).isEqualTo(Duration.ofDays(7));
    assertThat(settings.duration("A_PLAIN", Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
    assertThat(settings.duration("A_MISSING", Duration.ofSeconds(3)))
        .isEqualTo(Duration.ofSeconds(3));
    assertThat(settings.bytes("A_SIZE", 0, 0, Long.MAX_VALUE)).isEqualTo(16L << 20);
    assertThat(settings.passThrough("A_KAFKA_"))
        .containsExactly(
            Map.entry("sasl.mechanism", "PLAIN"), Map.entry("security.protocol", "SSL"));
  }

  @Test
  void shouldNameTheKeyAndTheExpectedFormWhenAValueIsBad() {
    Settings settings =
        Settings.of(
            Map.of("P_PORT", "http", "P_TTL", "soon", "P_SIZE", "12 parsecs", "P_ON", "maybe"));
    assertThatThrownBy(() -> settings.integer("P_PORT", 1, 0, 65535))
        .isInstanceOf(ConfigException.class)
        .hasMessage("P_PORT=http: expected an integer from 0 to 65535");
    assertThatThrownBy(() -> settings.duration("P_TTL", Duration.ZERO))
        .hasMessage("P_TTL=soon: expected a duration such as 500ms, 30s, 15m, 24h or 7d");
    assertThatThrownBy(() -> settings.bytes("P_SIZE", 0, 0, 10))
        .hasMessage("P_SIZE=12 parsecs: expected a size such as 16MiB, 512KiB or 1048576");
    assertThatThrownBy(() -> settings.bool("P_ON", false))
        .hasMessage("P_ON=maybe: expected true or false");
    assertThatThrownBy(() -> Settings.of(Map.of("P_PORT", "70000")).integer("P_PORT", 1, 0, 65535))
        .hasMessage("P_PORT=70000: expected an integer from 0 to 65535");
  }

  @Test
  void shouldLetTheEnvironmentWinOverThePropertiesFile() throws Exception {
    // Given
    Path file = dir.resolve("app.properties");
    Files.writeString(file, "X_HOST=from-file\nX_PORT=1\n");

    // When
    Settings settings =
        Settings.fromEnvironment(Map.of("X_CONFIG", file.toString(), "X_PORT", "2"), "X_CONFIG");

    // Then
    assertThat(settings.string("X_HOST", null)).isEqualTo("from-file");
    assertThat(settings.integer("X_PORT", 0, 0, 9)).isEqualTo(2);
  }

  @Test
  void shouldSayWhichFileCannotBeRead() {
    Path missing = dir.resolve("absent.properties");
    assertThatThrownBy(
            () -> Settings.fromEnvironment(Map.of("X_CONFIG", missing.toString()), "X_CONFIG"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("X_CONFIG=" + missing + ": cannot read the file: ");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"17179869200g", "9223372036854775807k", "99999999999999999999", "8796093022208m"})
  void shouldRefuseASizeThatOverflowsInsteadOfWrappingAround(String value) {
    // Given
    Settings settings = Settings.of(Map.of("PREFIXLOG_MAX_BODY_BYTES", value));

    // When / Then: a ConfigException naming the key (exit code 2), never a wrapped value
    assertThatThrownBy(() -> settings.bytes("PREFIXLOG_MAX_BODY_BYTES", 1, 1, Long.MAX_VALUE))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("PREFIXLOG_MAX_BODY_BYTES=" + value + ": ");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"99999999999999999999ms", "9223372036854775807d", "106751991167301d"})
  void shouldRefuseADurationThatOverflowsWithTheKeyNamed(String value) {
    // Given
    Settings settings = Settings.of(Map.of("PREFIXLOG_SESSION_TTL", value));

    // When / Then
    assertThatThrownBy(() -> settings.duration("PREFIXLOG_SESSION_TTL", Duration.ZERO))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("PREFIXLOG_SESSION_TTL=" + value + ": ");
  }
}
