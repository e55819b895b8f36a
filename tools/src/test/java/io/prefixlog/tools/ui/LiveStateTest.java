package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The session page's live-state panel, for each answer the stream app gives. */
class LiveStateTest {
  private static final String SHA = "ab".repeat(32);
  private static final String STATE =
      "{\"session_key\":\"s1\",\"host\":\"10.0.0.2:9464\",\"partition\":3,\"chain\":\"0a1b2c3d\","
          + "\"turns\":7,\"next_seq\":8,\"last_seen_ms\":1764000000000,\"dormant\":false,"
          + "\"bases_expire_ms\":1764001800000,\"state_expires_ms\":1764604800000,"
          + "\"base_bytes\":2048,\"bases\":[{\"seq\":7,\"sha256\":\""
          + SHA
          + "\",\"chain_depth\":2,\"length\":2048}],\"base_log\":[{\"seq\":7,\"whole\":true}]}";

  @Test
  void shouldSayNotConfiguredWithoutAStreamAppUrl() {
    // When
    String html = new LiveState(null, null).panel("s1");

    // Then
    assertThat(html)
        .isEqualTo(
            "<section id=\"live-state\" aria-labelledby=\"live-state-h\"><h2"
                + " id=\"live-state-h\">Live state in the stream app</h2><p class=\"status\">Not"
                + " configured: start the UI with <code>--stream-app http://HOST:9464</code> (or"
                + " PREFIXLOG_UI_STREAM_APP) and the stream app with"
                + " <code>PREFIXLOG_APPLICATION_SERVER</code>.</p></section>");
  }

  @Test
  void shouldShowTheStateAsMetadata() {
    // When
    String html = LiveState.render(200, STATE, null);

    // Then
    assertThat(html)
        .contains("<code>10.0.0.2:9464</code>, state partition 3")
        .contains("<code>0a1b2c3d</code>")
        .contains("7 (next seq 8)")
        .contains("<th scope=\"row\">7</th><td><code>" + SHA + "</code></td>")
        .contains("2.0 KiB")
        .contains("<time datetime=\"2025-11-24T16:30:00Z\">");
  }

  @Test
  void shouldSayWhyWhenThereIsNoState() {
    // When
    String unknown =
        LiveState.render(
            404,
            "{\"session_key\":\"s1\",\"status\":\"unknown\",\"reason\":\"no state <here>\"}",
            null);
    String rebuilding =
        LiveState.render(
            503,
            "{\"session_key\":\"s1\",\"status\":\"rebuilding\",\"reason\":\"a rebalance\"}",
            null);
    String down = LiveState.render(-1, null, "http://h:1 did not answer: ConnectException");
    String notJson = LiveState.render(502, "<html>bad gateway</html>", null);

    // Then
    assertThat(unknown).contains("<strong>No live state:</strong> no state &lt;here&gt;</p>");
    assertThat(rebuilding)
        .contains("<strong>Rebuilding, ask again shortly:</strong> a rebalance</p>");
    assertThat(down)
        .contains("<strong>Unavailable:</strong> http://h:1 did not answer: ConnectException</p>");
    assertThat(notJson).contains("<strong>Unavailable:</strong> HTTP 502, not JSON</p>");
  }

  @Test
  void shouldAskTheStreamAppWithTheTokenAndTheEncodedKey() throws Exception {
    // Given: a stand-in for the stream app's endpoint
    List<String> asked = new ArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/state/sessions/",
        exchange -> {
          asked.add(
              exchange.getRequestURI().getRawPath()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization"));
          byte[] body = STATE.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    try {
      LiveState live =
          new LiveState(
              "http://127.0.0.1:" + server.getAddress().getPort() + "/", "state-token-123456");

      // When
      String html = live.panel("a b+c");

      // Then
      assertThat(asked).containsExactly("/state/sessions/a%20b%2Bc Bearer state-token-123456");
      assertThat(html).contains("<code>10.0.0.2:9464</code>, state partition 3");
    } finally {
      server.stop(0);
    }
  }
}
