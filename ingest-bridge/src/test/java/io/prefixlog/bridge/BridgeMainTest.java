package io.prefixlog.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class BridgeMainTest {
  @Test
  void shouldRefuseToStartWithNothingToRunOrABadSetting() {
    assertThat(BridgeMain.run(new String[0], Map.of())).isEqualTo(2);
    assertThat(BridgeMain.run(new String[] {"--bogus"}, Map.of())).isEqualTo(2);
    assertThat(BridgeMain.run(new String[0], Map.of("PREFIXLOG_PROXY_UPSTREAM", "ftp://x")))
        .isEqualTo(2);
    assertThat(
            BridgeMain.run(
                new String[0],
                Map.of(
                    "PREFIXLOG_PROXY_UPSTREAM", "http://127.0.0.1:8000",
                    "PREFIXLOG_KV_ENDPOINTS", "tcp://*:5557")))
        .isEqualTo(2);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a start would serve
  void shouldRefuseToListenBeyondLoopbackWithAPlaceholderSecretNamingTheVariable() {
    // Given: compose's old placeholder, on the wildcard address a container listens on
    String placeholder = "change-me-compose-session-secret";
    Map<String, String> env =
        Map.of(
            "PREFIXLOG_PROXY_UPSTREAM", "http://127.0.0.1:8000",
            "PREFIXLOG_PROXY_HOST", "0.0.0.0",
            "PREFIXLOG_SESSION_SECRET", placeholder,
            "PREFIXLOG_METRICS_PORT", "-1");

    // When
    Started started = run(env);

    // Then: exit 2 before anything listens, the variable named, the value never printed
    assertThat(started.exitCode()).isEqualTo(2);
    assertThat(started.stderr())
        .startsWith("prefixlog ingest-bridge: PREFIXLOG_SESSION_SECRET")
        .contains("PREFIXLOG_PROXY_HOST=0.0.0.0")
        .doesNotContain(placeholder);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a start would serve
  void shouldRefuseToListenBeyondLoopbackWithoutASecret() {
    Started started =
        run(
            Map.of(
                "PREFIXLOG_PROXY_UPSTREAM", "http://127.0.0.1:8000",
                "PREFIXLOG_PROXY_HOST", "0.0.0.0",
                "PREFIXLOG_METRICS_PORT", "-1"));

    assertThat(started.exitCode()).isEqualTo(2);
    assertThat(started.stderr())
        .startsWith("prefixlog ingest-bridge: PREFIXLOG_SESSION_SECRET is unset");
  }

  private record Started(int exitCode, String stderr) {}

  /** Runs the bridge's main in this JVM; only configuration errors return, so no server stays. */
  private static Started run(Map<String, String> env) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      int code = BridgeMain.run(new String[0], env);
      return new Started(code, captured.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
  }
}
