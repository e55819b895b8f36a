package io.prefixlog.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StreamAppConfigTest {

  @Test
  void shouldDefaultTheStatePartitionsToThePartitionsAndTheDedupWindowToADay() {
    // Given
    Map<String, String> settings = Map.of("PREFIXLOG_PARTITIONS", "12");

    // When
    StreamAppConfig config = StreamAppConfig.defaults(settings);

    // Then
    assertThat(config.statePartitions()).isEqualTo(12);
    assertThat(config.dedupWindow()).isEqualTo(Duration.ofHours(24));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "PREFIXLOG_SESSION_TTL=8d|PREFIXLOG_SESSION_TTL (8d) must be below"
            + " PREFIXLOG_OUTPUT_RETENTION (7d)",
        "PREFIXLOG_EVICTION_INTERVAL=1h|PREFIXLOG_EVICTION_INTERVAL (1h) must be at most"
            + " PREFIXLOG_SESSION_TTL (30m)",
        "PREFIXLOG_SESSION_SEQ_RETENTION=10m|PREFIXLOG_SESSION_SEQ_RETENTION (10m) must be at"
            + " least PREFIXLOG_SESSION_TTL (30m)",
        "PREFIXLOG_DEDUP_WINDOW=0s|PREFIXLOG_DEDUP_WINDOW=0s: expected a duration above zero",
      })
  void shouldRefuseRetentionSettingsThatContradictEachOther(String setting, String message) {
    // Given
    String[] pair = setting.split("=", 2);
    Map<String, String> settings = Map.of(pair[0], pair[1]);

    // When / Then
    assertThatThrownBy(() -> StreamAppConfig.defaults(settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message);
  }
}
