package io.prefixlog.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.net.InetAddress;
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

  @Test
  void shouldResolveAnAutoApplicationServerToThisHostsOwnAddress() throws Exception {
    // Given: what every container scaled from one compose service gets
    StreamAppConfig config =
        StreamAppConfig.defaults(Map.of("PREFIXLOG_APPLICATION_SERVER", "auto:9464"));

    // When
    Object server = StreamApp.streamsProperties(config).get("application.server");

    // Then
    String self = InetAddress.getLocalHost().getHostAddress();
    assertThat(config.applicationServer()).isEqualTo(new StreamAppConfig.HostAndPort(self, 9464));
    assertThat(server).isEqualTo(self + ":9464");
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
            + " least PREFIXLOG_OUTPUT_RETENTION (7d)",
        "PREFIXLOG_SESSION_SEQ_RETENTION=1d|PREFIXLOG_SESSION_SEQ_RETENTION (1d) must be at"
            + " least PREFIXLOG_OUTPUT_RETENTION (7d)",
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

  @Test
  void shouldSetTheApplicationServerOnlyWhenStateQueriesAreOn() {
    // Given
    StreamAppConfig off = StreamAppConfig.defaults(Map.of());
    StreamAppConfig on =
        StreamAppConfig.defaults(Map.of("PREFIXLOG_APPLICATION_SERVER", "127.0.0.1:9464"));

    // When
    Object offServer = StreamApp.streamsProperties(off).get("application.server");
    Object onServer = StreamApp.streamsProperties(on).get("application.server");

    // Then
    assertThat(offServer).isNull();
    assertThat(onServer).isEqualTo("127.0.0.1:9464");
    assertThat(on.applicationServer())
        .isEqualTo(new StreamAppConfig.HostAndPort("127.0.0.1", 9464));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "PREFIXLOG_APPLICATION_SERVER=stream-app|PREFIXLOG_APPLICATION_SERVER must be HOST:PORT"
            + " (port 1-65535), got \"stream-app\"",
        "PREFIXLOG_APPLICATION_SERVER=:9464|PREFIXLOG_APPLICATION_SERVER must be HOST:PORT"
            + " (port 1-65535), got \":9464\"",
        "PREFIXLOG_APPLICATION_SERVER=h:70000|PREFIXLOG_APPLICATION_SERVER must be HOST:PORT"
            + " (port 1-65535), got \"h:70000\"",
        "PREFIXLOG_STATE_TOKEN=short|PREFIXLOG_STATE_TOKEN must be at least 16 characters, got 5",
      })
  void shouldRefuseAMalformedApplicationServerOrAShortToken(String setting, String message) {
    // Given
    String[] kv = setting.split("=", 2);

    // When / Then
    assertThatThrownBy(() -> StreamAppConfig.defaults(Map.of(kv[0], kv[1])))
        .isInstanceOf(ConfigException.class)
        .hasMessage(message);
  }

  @Test
  void shouldRefuseStateQueriesBeyondLoopbackWithoutAToken() {
    // Given
    Map<String, String> open =
        Map.of(
            "PREFIXLOG_APPLICATION_SERVER", "stream-app-1:9464",
            "PREFIXLOG_METRICS_HOST", "0.0.0.0");
    Map<String, String> placeholder =
        Map.of(
            "PREFIXLOG_APPLICATION_SERVER", "stream-app-1:9464",
            "PREFIXLOG_METRICS_HOST", "0.0.0.0",
            "PREFIXLOG_STATE_TOKEN", "change-me-change-me");
    Map<String, String> protectedByToken =
        Map.of(
            "PREFIXLOG_APPLICATION_SERVER", "stream-app-1:9464",
            "PREFIXLOG_METRICS_HOST", "0.0.0.0",
            "PREFIXLOG_STATE_TOKEN", "kq3Jd8xVt2LwP0nZr7Ym");

    // When / Then
    assertThatThrownBy(() -> StreamAppConfig.defaults(open))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "PREFIXLOG_APPLICATION_SERVER turns on the state queries, and PREFIXLOG_METRICS_HOST"
                + " (0.0.0.0) is reachable beyond this machine: set PREFIXLOG_STATE_TOKEN (not a"
                + " placeholder; the same on every instance) so that only its holders read the"
                + " sessions' state");
    assertThatThrownBy(() -> StreamAppConfig.defaults(placeholder))
        .isInstanceOf(ConfigException.class);
    assertThat(StreamAppConfig.defaults(protectedByToken).stateToken())
        .isEqualTo("kq3Jd8xVt2LwP0nZr7Ym");
    assertThat(StreamAppConfig.defaults(Map.of("PREFIXLOG_METRICS_HOST", "0.0.0.0")).stateToken())
        .isNull();
  }
}
