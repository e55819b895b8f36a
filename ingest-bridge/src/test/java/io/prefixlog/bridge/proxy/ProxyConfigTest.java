package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.session.SessionKeyDeriver;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
                Map.entry("PREFIXLOG_KAFKA_LINGER_MS", "1"),
                Map.entry("PREFIXLOG_KAFKA_SASL_JAAS_CONFIG", "password=\"kafka-secret\"")));

    // Then
    assertThat(config.upstream().origin()).isEqualTo(URI.create("http://engine:8000/"));
    assertThat(config.upstream().port()).isEqualTo(8000);
    assertThat(config.listen().host()).isEqualTo("0.0.0.0");
    assertThat(config.listen().port()).isEqualTo(9000);
    assertThat(config.capture().maxBodyBytes()).isEqualTo(1 << 20);
    assertThat(config.upstream().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.capture().captureHeaders())
        .containsExactlyInAnyOrder("x-request-id", "x-trace");
    assertThat(config.capture().clientAddr()).isEqualTo(CaptureConfig.ClientAddrMode.TRUNCATE);
    assertThat(config.spill().dir()).isEqualTo(Path.of("/tmp/spill"));
    assertThat(config.ingest().token()).isEqualTo("0123456789abcdef");
    assertThat(config.capture().usesDevSecret()).isFalse();
    assertThat(config.upstream().setSessionHeader()).isTrue();
    assertThat(config.publish().interval()).isZero();
    assertThat(config.publish().kafka()).containsEntry("linger.ms", "1");
    assertThat(config.toString()).doesNotContain("0123456789abcdef").doesNotContain("a-secret");
    // The concerns' records print what they hold, never a credential
    assertThat(config.capture().toString()).doesNotContain("a-secret").contains("x-trace");
    assertThat(config.ingest().toString()).doesNotContain("0123456789abcdef");
    assertThat(config.publish().toString())
        .contains("sasl.jaas.config")
        .doesNotContain("kafka-secret");
  }

  @Test
  void shouldPlaceEveryKeyOfEveryConcernInTheDefinition() throws IllegalAccessException {
    // Given: the keys each concern's record declares
    List<ConfigKey<?>> declared = new ArrayList<>();
    for (Class<?> concern :
        List.of(
            ListenConfig.class,
            UpstreamConfig.class,
            CaptureConfig.class,
            SamplingConfig.class,
            PublishConfig.class,
            SpillConfig.class,
            WarmUpConfig.class,
            IngestConfig.class,
            ClientLimitsConfig.class,
            MetricsConfig.class,
            ProxyConfig.class)) {
      for (Field field : concern.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigKey.class) {
          declared.add((ConfigKey<?>) field.get(null));
        }
      }
    }

    // Then: the definition (the README's table, --help) lists each of them, and nothing else
    assertThat(ProxyConfig.DEFINITION.keys()).containsExactlyInAnyOrderElementsOf(declared);
  }

  @Test
  void shouldDefaultToLoopbackAndTheDevelopmentSecret() {
    ProxyConfig config = ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "k:9092");
    assertThat(config.listen().host()).isEqualTo("127.0.0.1");
    assertThat(config.listen().port()).isEqualTo(8088);
    assertThat(config.capture().usesDevSecret()).isTrue();
    assertThat(config.ingest().token()).isNull();
    assertThat(config.spill().dir()).isNull();
    assertThat(config.capture().maxBodyBytes()).isEqualTo(16 << 20);
    assertThat(config.publish().interval()).isEqualTo(Duration.ofMillis(200));
    assertThat(config.listen().eventLoops()).isEqualTo(Runtime.getRuntime().availableProcessors());
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
    assertThat(from(Map.of("PREFIXLOG_PROXY_HOST", "localhost")).capture().usesDevSecret())
        .isTrue();
    assertThat(
            from(Map.of(
                    "PREFIXLOG_PROXY_HOST",
                    "0.0.0.0",
                    "PREFIXLOG_SESSION_SECRET",
                    STRONG,
                    "PREFIXLOG_INGEST_TOKEN",
                    STRONG + "-ingest"))
                .listen()
                .host())
        .isEqualTo("0.0.0.0");
  }

  @Test
  void shouldForceTheSpillEveryBatchUnlessAnIntervalIsSet() {
    // Given / When
    ProxyConfig defaults = from(Map.of());
    ProxyConfig interval = from(Map.of("PREFIXLOG_SPILL_FSYNC_INTERVAL", "250ms"));

    // Then
    assertThat(defaults.spill().fsyncInterval()).isZero();
    assertThat(interval.spill().fsyncInterval()).isEqualTo(java.time.Duration.ofMillis(250));
  }

  @Test
  void shouldCheckSettingsThatGoTogetherOnlyOnceAllOfThemAreSet() {
    // Given: the default segment (64 MiB) is larger than the spill bound asked for
    ProxyConfig defaults = ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "k:9092");

    // When
    ProxyConfig spilling = defaults.withSpill(Path.of("spill"), 16L << 20, 1L << 20);

    // Then
    assertThat(spilling.spill().maxBytes()).isEqualTo(16L << 20);
    assertThat(spilling.spill().segmentBytes()).isEqualTo(1L << 20);
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
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_CAPTURE_HEADERS", "X-Prefixlog-Tenant")))
        .hasMessageContaining("the header the proxy records a request's tenant in");
    assertThatThrownBy(
            () ->
                from(
                    Map.of(
                        "PREFIXLOG_TENANT", "header:x-session-id",
                        "PREFIXLOG_SESSION_HEADERS", "x-session-id")))
        .hasMessageContaining("a tenant is not a session");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_TENANT", "header:Authorization")))
        .hasMessageContaining("use `credential`");
    assertThatThrownBy(() -> from(Map.of("PREFIXLOG_TENANT", "header:x-team-token")))
        .hasMessageContaining("a credential header");
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
    assertThat(defaults.publish().capturePriority()).isEqualTo(Thread.MIN_PRIORITY);
    assertThat(set.publish().capturePriority()).isEqualTo(Thread.NORM_PRIORITY);
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
    assertThat(two.upstream().maxConnections()).isEqualTo(1024);
    assertThat(two.upstream().connectionsPerLoop(two.listen().eventLoops())).isEqualTo(512);
    assertThat(three.upstream().connectionsPerLoop(three.listen().eventLoops())).isEqualTo(342);
    assertThat(eight.upstream().connectionsPerLoop(eight.listen().eventLoops())).isEqualTo(128);
    // (every loop gets at least one)
    assertThat(few.upstream().connectionsPerLoop(few.listen().eventLoops())).isEqualTo(1);
  }
}
