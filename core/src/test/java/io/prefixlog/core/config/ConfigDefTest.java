package io.prefixlog.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDefTest {
  enum Mode {
    FAST,
    SAFE
  }

  static final ConfigKey<Integer> THREADS =
      ConfigKey.of("APP_THREADS", ConfigTypes.integer(1, 8)).defaultValue(2).doc("threads");
  static final ConfigKey<Duration> TTL =
      ConfigKey.of("APP_TTL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(30))
          .doc("idle | expiry");
  static final ConfigKey<Long> LIMIT =
      ConfigKey.of("APP_LIMIT", ConfigTypes.size(1024, 1L << 30))
          .defaultValue(16L << 20)
          .doc("largest body");
  static final ConfigKey<Mode> MODE =
      ConfigKey.of("APP_MODE", ConfigTypes.oneOf(Mode.class)).defaultValue(Mode.SAFE).doc("mode");
  static final ConfigKey<String> URL =
      ConfigKey.of("APP_URL", ConfigTypes.text())
          .required("the engine's URL")
          .doc("where the engine is");
  static final ConfigKey<String> TOKEN =
      ConfigKey.of("APP_TOKEN", ConfigTypes.text())
          .documentedDefault("none (off)")
          .secret()
          .doc("bearer token");

  static final ConfigDef DEF =
      ConfigDef.of("test app", List.of(THREADS, TTL, LIMIT, MODE, URL, TOKEN))
          .withNote(new ConfigDef.Note("APP_KAFKA_*", "none", "Kafka client settings", "passed"));

  @Test
  void shouldReadEveryKeyWithItsTypeAndDefault() {
    // When
    ConfigValues values =
        DEF.parse(
            Settings.of(
                Map.of(
                    "APP_URL",
                    "http://e",
                    "APP_TTL",
                    "15m",
                    "APP_LIMIT",
                    "1MiB",
                    "APP_MODE",
                    "Fast")));

    // Then
    assertThat(values.get(THREADS)).isEqualTo(2);
    assertThat(values.get(TTL)).isEqualTo(Duration.ofMinutes(15));
    assertThat(values.get(LIMIT)).isEqualTo(1L << 20);
    assertThat(values.get(MODE)).isEqualTo(Mode.FAST);
    assertThat(values.get(URL)).isEqualTo("http://e");
    assertThat(values.get(TOKEN)).isNull();
  }

  @Test
  void shouldNameTheKeyTheValueAndTheExpectedFormInEveryError() {
    assertThatThrownBy(() -> DEF.parse(Settings.of(Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessage("APP_URL is required (the engine's URL)");
    assertThatThrownBy(() -> parse("APP_THREADS", "9"))
        .hasMessage("APP_THREADS=9: expected an integer from 1 to 8");
    assertThatThrownBy(() -> parse("APP_THREADS", "two"))
        .hasMessage("APP_THREADS=two: expected an integer from 1 to 8");
    assertThatThrownBy(() -> parse("APP_TTL", "0"))
        .hasMessage("APP_TTL=0: expected a duration above zero, such as 100ms");
    assertThatThrownBy(() -> parse("APP_TTL", "soon"))
        .hasMessage("APP_TTL=soon: expected a duration such as 500ms, 30s, 15m, 24h or 7d");
    assertThatThrownBy(() -> parse("APP_LIMIT", "2GiB"))
        .hasMessage("APP_LIMIT=2GiB: expected a size from 1024 to 1073741824 bytes");
    assertThatThrownBy(() -> parse("APP_MODE", "quick"))
        .hasMessage("APP_MODE=quick: expected fast or safe");
  }

  @Test
  void shouldCheckAValueSetInCodeAgainstTheSameRange() {
    // Given
    ConfigValues values = DEF.parse(Settings.of(Map.of("APP_URL", "http://e")));

    // When / Then
    assertThat(values.with(THREADS, 8).get(THREADS)).isEqualTo(8);
    assertThatThrownBy(() -> values.with(THREADS, 0))
        .hasMessage("APP_THREADS=0: expected an integer from 1 to 8");
    assertThatThrownBy(() -> values.with(TTL, Duration.ZERO))
        .hasMessage("APP_TTL=0: expected a duration above zero, such as 100ms");
    assertThatThrownBy(() -> values.with(ConfigKey.of("OTHER", ConfigTypes.bool()), true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("OTHER is not a setting of test app");
  }

  @Test
  void shouldNeverShowASecretValue() {
    // Given
    ConfigValues values =
        DEF.parse(Settings.of(Map.of("APP_URL", "http://e", "APP_TOKEN", "s3cr3t-t0ken-value")));

    // Then
    assertThat(values.get(TOKEN)).isEqualTo("s3cr3t-t0ken-value");
    assertThat(values.toString())
        .isEqualTo(
            "test app[APP_THREADS=2, APP_TTL=30m, APP_LIMIT=16MiB, APP_MODE=safe,"
                + " APP_URL=http://e, APP_TOKEN=[hidden]]");
  }

  @Test
  void shouldRenderTheReadmeTableFromTheKeys() {
    assertThat(DEF.markdownTable())
        .isEqualTo(
            "| setting | default | values | meaning |\n"
                + "|---|---|---|---|\n"
                + "| `APP_THREADS` | `2` | integer 1–8 | threads |\n"
                + "| `APP_TTL` | `30m` | duration > 0 | idle \\| expiry |\n"
                + "| `APP_LIMIT` | `16MiB` | size 1KiB–1GiB | largest body |\n"
                + "| `APP_MODE` | `safe` | fast or safe | mode |\n"
                + "| `APP_URL` | required | text | where the engine is |\n"
                + "| `APP_TOKEN` | none (off) | text | bearer token |\n"
                + "| `APP_KAFKA_*` | none | Kafka client settings | passed |\n");
  }

  @Test
  void shouldRenderTheHelpTextWrappedAndWithoutMarkdown() {
    // Given
    ConfigKey<Boolean> wordy =
        ConfigKey.of("APP_WORDY", ConfigTypes.bool())
            .defaultValue(true)
            .doc("`true`: " + "word ".repeat(30).trim());

    // When
    String help = ConfigDef.of("wordy app", List.of(wordy)).helpText();

    // Then: at most 100 columns
    assertThat(help.lines())
        .containsExactly(
            "Settings of the wordy app (environment variables):",
            "  APP_WORDY  (true or false; default true)",
            "      true: " + "word ".repeat(17).trim(),
            "      " + "word ".repeat(13).trim());
  }

  @Test
  void shouldRefuseADefinitionThatDeclaresAKeyTwiceOrLeavesOneUndocumented() {
    assertThatThrownBy(() -> ConfigDef.of("app", List.of(THREADS, THREADS)))
        .hasMessage("app declares APP_THREADS twice");
    assertThatThrownBy(
            () -> ConfigDef.of("app", List.of(ConfigKey.of("APP_X", ConfigTypes.bool()))))
        .hasMessage("app: APP_X has no documentation");
  }

  private static ConfigValues parse(String key, String value) {
    return DEF.parse(Settings.of(Map.of("APP_URL", "http://e", key, value)));
  }
}
