package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.session.SessionKeyDeriver;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyConfigTest {
  private static final String STRONG = "9f2c4e1a7b3d8e6f0a5c2b9d4e7f1a3c";

  private static ProxyConfig from(Map<String, String> values) {
    Map<String, String> all = new HashMap<>(values);
    all.putIfAbsent("PREFIXLOG_PROXY_UPSTREAM", "http://127.0.0.1:8000");
    return ProxyConfig.fromSettings(Settings.of(all));
  }

  @Test
  void shouldReadEverySettingFromTheEnvironment() {
    // When
    ProxyConfig config =
        from(
            Map.ofEntries(
                Map.entry("PREFIXLOG_PROXY_UPSTREAM", "http://engine:8000/"),
                Map.entry("PREFIXLOG_PROXY_HOST", "0.0.0.0"),
                Map.entry("PREFIXLOG_PROXY_PORT", "9000"),
                Map.entry("PREFIXLOG_MAX_BODY_BYTES", "1MiB"),
                Map.entry("PREFIXLOG_PROXY_UPSTREAM_TIMEOUT", "30s"),
                Map.entry("PREFIXLOG_CAPTURE_HEADERS", "X-Request-Id, X-Trace"),
                Map.entry("PREFIXLOG_CLIENT_ADDR", "truncate"),
                Map.entry("PREFIXLOG_SPILL_DIR", "/tmp/spill"),
                Map.entry("PREFIXLOG_INGEST_TOKEN", "0123456789abcdef"),
                Map.entry("PREFIXLOG_SESSION_SECRET", "a-secret-of-16-bytes"),
                Map.entry("PREFIXLOG_PROXY_SET_SESSION_HEADER", "true"),
                Map.entry("PREFIXLOG_PROXY_PUBLISH_INTERVAL", "0"),
                Map.entry("PREFIXLOG_KAFKA_LINGER_MS", "1")));

    // Then
    assertThat(config.upstream()).isEqualTo(URI.create("http://engine:8000/"));
    assertThat(config.upstreamPort()).isEqualTo(8000);
    assertThat(config.listenHost()).isEqualTo("0.0.0.0");
    assertThat(config.listenPort()).isEqualTo(9000);
    assertThat(config.maxBodyBytes()).isEqualTo(1 << 20);
    assertThat(config.upstreamIdleTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.captureHeaders()).containsExactlyInAnyOrder("x-request-id", "x-trace");
    assertThat(config.clientAddrMode()).isEqualTo(ProxyConfig.ClientAddrMode.TRUNCATE);
    assertThat(config.spillDir()).isEqualTo(Path.of("/tmp/spill"));
    assertThat(config.ingestToken()).isEqualTo("0123456789abcdef");
    assertThat(config.usesDevSecret()).isFalse();
    assertThat(config.setSessionHeader()).isTrue();
    assertThat(config.publishInterval()).isZero();
    assertThat(config.kafka()).containsEntry("linger.ms", "1");
    assertThat(config.toString()).doesNotContain("0123456789abcdef").doesNotContain("a-secret");
  }

  @Test
  void shouldDefaultToLoopbackAndTheDevelopmentSecret() {
    ProxyConfig config = ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "k:9092");
    assertThat(config.listenHost()).isEqualTo("127.0.0.1");
    assertThat(config.listenPort()).isEqualTo(8088);
    assertThat(config.usesDevSecret()).isTrue();
    assertThat(config.ingestToken()).isNull();
    assertThat(config.spillDir()).isNull();
    assertThat(config.maxBodyBytes()).isEqualTo(16 << 20);
    assertThat(config.publishInterval()).isEqualTo(Duration.ofMillis(200));
    assertThat(config.eventLoops()).isEqualTo(Runtime.getRuntime().availableProcessors());
  }

  @Test
  void shouldRefuseTheDevelopmentOrAPlaceholderSecretBeyondLoopback() {
    // The development secret is public: keys of guessable session ids could be recomputed by
    // anyone who reaches a proxy listening beyond loopback.
    for (Map<String, String> env :
        List.of(
            Map.of("PREFIXLOG_PROXY_HOST", "0.0.0.0"),
            Map.of(
                "PREFIXLOG_PROXY_HOST",
                "0.0.0.0",
                "PREFIXLOG_SESSION_SECRET",
                SessionKeyDeriver.DEV_SECRET),
            Map.of(
                "PREFIXLOG_PROXY_HOST",
                "10.0.0.5",
                "PREFIXLOG_SESSION_SECRET",
                "change-me-compose-session-secret"))) {
      assertThatThrownBy(() -> from(env))
          .as("%s", env)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("PREFIXLOG_SESSION_SECRET")
          .hasMessageContaining("PREFIXLOG_PROXY_HOST=" + env.get("PREFIXLOG_PROXY_HOST"))
          .hasMessageNotContaining(SessionKeyDeriver.DEV_SECRET)
          .hasMessageNotContaining("change-me-compose-session-secret");
    }
    // The same through the builder API the embedded stack and the tests use.
    assertThatThrownBy(
            () ->
                ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "k:9092")
                    .withListen("0.0.0.0", 0))
        .hasMessageStartingWith("PREFIXLOG_SESSION_SECRET");
  }

  @Test
  void shouldRefuseAPlaceholderIngestTokenBeyondLoopback() {
    assertThatThrownBy(
            () ->
                from(
                    Map.of(
                        "PREFIXLOG_PROXY_HOST", "0.0.0.0",
                        "PREFIXLOG_SESSION_SECRET", STRONG,
                        "PREFIXLOG_INGEST_TOKEN", "change-me-ingest-token")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("PREFIXLOG_INGEST_TOKEN")
        .hasMessageNotContaining("change-me-ingest-token");
  }

  @Test
  void shouldKeepTheDevelopmentSecretOnLoopbackAndARealSecretAnywhere() {
    assertThat(from(Map.of("PREFIXLOG_PROXY_HOST", "localhost")).usesDevSecret()).isTrue();
    assertThat(
            from(Map.of(
                    "PREFIXLOG_PROXY_HOST",
                    "0.0.0.0",
                    "PREFIXLOG_SESSION_SECRET",
                    STRONG,
                    "PREFIXLOG_INGEST_TOKEN",
                    STRONG + "-ingest"))
                .listenHost())
        .isEqualTo("0.0.0.0");
  }

  @Test
  void shouldForceTheSpillEveryBatchUnlessAnIntervalIsSet() {
    // Given / When
    ProxyConfig defaults = from(Map.of());
    ProxyConfig interval = from(Map.of("PREFIXLOG_SPILL_FSYNC_INTERVAL", "250ms"));

    // Then
    assertThat(defaults.spillFsyncInterval()).isZero();
    assertThat(interval.spillFsyncInterval()).isEqualTo(java.time.Duration.ofMillis(250));
  }

  @Test
  void shouldCheckSettingsThatGoTogetherOnlyOnceAllOfThemAreSet() {
    // Given: the default segment (64 MiB) is larger than the spill bound asked for
    ProxyConfig defaults = ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "k:9092");

    // When
    ProxyConfig spilling = defaults.withSpill(Path.of("spill"), 16L << 20, 1L << 20);

    // Then
    assertThat(spilling.spillMaxBytes()).isEqualTo(16L << 20);
    assertThat(spilling.spillSegmentBytes()).isEqualTo(1L << 20);
    assertThatThrownBy(() -> defaults.withSpill(Path.of("spill"), 16L << 20, 32L << 20))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "PREFIXLOG_SPILL_SEGMENT_BYTES (33554432) must not exceed PREFIXLOG_SPILL_MAX_BYTES"
                + " (16777216)");
  }

  @Test
  void shouldRejectBadSettingsNamingTheKey() {
    assertThatThrownBy(() -> ProxyConfig.fromSettings(Settings.of(Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_PROXY_UPSTREAM is required");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_UPSTREAM", "ftp://x")))
        .hasMessageContaining("PREFIXLOG_PROXY_UPSTREAM=ftp://x");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_UPSTREAM", "http://x:1/v1")))
        .hasMessageContaining("origin only");
    assertThatThrownBy(
            () -> from(Map.of("PREFIXLOG_CAPTURE_HEADERS", "x-request-id,Authorization")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_CAPTURE_HEADERS names 'authorization'");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_SESSION_SECRET", "short")))
        .hasMessageContaining("PREFIXLOG_SESSION_SECRET");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_INGEST_TOKEN", "short")))
        .hasMessageContaining("PREFIXLOG_INGEST_TOKEN");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_CLIENT_ADDR", "blur")))
        .hasMessageContaining("PREFIXLOG_CLIENT_ADDR=blur");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_EVENT_LOOPS", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_PROXY_EVENT_LOOPS");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_CONNECT_TIMEOUT", "0")))
        .hasMessageContaining("PREFIXLOG_PROXY_CONNECT_TIMEOUT");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_PUBLISH_INTERVAL", "2s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_PROXY_PUBLISH_INTERVAL=2s: expected a duration from 0");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_PORT", "70000")))
        .hasMessageContaining("PREFIXLOG_PROXY_PORT=70000");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_CAPTURE_PRIORITY", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_PROXY_CAPTURE_PRIORITY=0");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_PROXY_CAPTURE_PRIORITY", "11")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_PROXY_CAPTURE_PRIORITY=11");
  }

  @Test
  void shouldRunTheCaptureThreadsAtTheLowestPriorityUnlessSetOtherwise() {
    // Given / When
    ProxyConfig defaults = from(Map.of());
    ProxyConfig set = from(Map.of("PREFIXLOG_PROXY_CAPTURE_PRIORITY", "5"));

    // Then
    assertThat(defaults.capturePriority()).isEqualTo(Thread.MIN_PRIORITY);
    assertThat(set.capturePriority()).isEqualTo(Thread.NORM_PRIORITY);
  }

  @Test
  void shouldShareTheUpstreamConnectionsOutOverTheEventLoopsWhateverTheirNumber() {
    // Given: the default of 1,024 upstream connections in all, on 2, 3 and 8 event loops, and a
    // number set by hand
    ProxyConfig two = from(Map.of("PREFIXLOG_PROXY_EVENT_LOOPS", "2"));
    ProxyConfig three = from(Map.of("PREFIXLOG_PROXY_EVENT_LOOPS", "3"));
    ProxyConfig eight = from(Map.of("PREFIXLOG_PROXY_EVENT_LOOPS", "8"));
    ProxyConfig few =
        from(Map.of("PREFIXLOG_PROXY_EVENT_LOOPS", "8", "PREFIXLOG_PROXY_MAX_CONNECTIONS", "3"));

    // Then: each loop's pool is its share, so that what the exchanges paused for stalled clients
    // hold (a few reads of the engine's stream each) does not grow with the host's cores
    assertThat(two.maxUpstreamConnections()).isEqualTo(1024);
    assertThat(two.upstreamConnectionsPerLoop()).isEqualTo(512);
    assertThat(three.upstreamConnectionsPerLoop()).isEqualTo(342);
    assertThat(eight.upstreamConnectionsPerLoop()).isEqualTo(128);
    // (every loop gets at least one)
    assertThat(few.upstreamConnectionsPerLoop()).isEqualTo(1);
  }
}
