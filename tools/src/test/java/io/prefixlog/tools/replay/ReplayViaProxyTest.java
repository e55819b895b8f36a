package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.prefixlog.cli.Terminal;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.demo.Served;
import io.prefixlog.embedded.Ports;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replay --via-proxy} against the demo engine itself (no proxy in between). */
class ReplayViaProxyTest {
  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  void shouldSendEveryTurnAsAnHttpRequestHalfOfThemStreamed() throws Exception {
    // Given
    Path corpus = corpus();
    List<Served> served = new CopyOnWriteArrayList<>();
    try (DemoUpstream upstream = DemoUpstream.start(DemoUpstream.Options.defaults(), served::add)) {

      // When
      int code =
          replay(
              "--corpus", corpus.toString(),
              "--via-proxy", upstream.baseUrl(),
              "--concurrency", "3",
              "--stream", "0.5",
              "--seed", "7");

      // Then
      assertThat(code).as(console.err()).isEqualTo(Command.OK);
    }
    assertThat(served).hasSize(6);
    assertThat(served.stream().filter(Served::stream).count()).isEqualTo(3);
    assertThat(served).allSatisfy(s -> assertThat(s.usageSent()).isTrue());
    assertThat(served)
        .allSatisfy(s -> assertThat(s.responseId()).isEqualTo("chatcmpl-" + s.requestId()));
    // Later turns of a conversation share its system prompt and history: cached.
    assertThat(served.stream().mapToLong(Served::cachedTokens).sum()).isPositive();
    String summary = console.out();
    assertThat(summary)
        .contains("replay: 6 requests from 3 conversations")
        .contains("status 200 6")
        .contains("streamed 3");
  }

  @Test
  void shouldSendNoSessionHeaderWhenAsked() throws Exception {
    // Given: an engine that notes each request's X-Session-ID
    List<String> sessionHeaders = new CopyOnWriteArrayList<>();
    HttpServer engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    engine.createContext(
        "/",
        exchange -> {
          try (exchange) {
            exchange.getRequestBody().readAllBytes();
            sessionHeaders.add(
                String.valueOf(exchange.getRequestHeaders().getFirst("X-Session-ID")));
            byte[] answer = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
          }
        });
    engine.start();
    String url = "http://127.0.0.1:" + engine.getAddress().getPort();
    try {
      // When: the corpus replayed once as usual, once without the header
      int withHeader =
          replay("--corpus", corpus().toString(), "--via-proxy", url, "--concurrency", "1");
      List<String> usual = List.copyOf(sessionHeaders);
      sessionHeaders.clear();
      int without =
          replay(
              "--corpus",
              corpus().toString(),
              "--via-proxy",
              url,
              "--concurrency",
              "1",
              "--no-session-header");

      // Then
      assertThat(withHeader).as(console.err()).isEqualTo(Command.OK);
      assertThat(without).as(console.err()).isEqualTo(Command.OK);
      assertThat(usual).containsExactlyInAnyOrder("c1", "c2", "c2", "c3", "c3", "c3");
      assertThat(sessionHeaders).containsExactly("null", "null", "null", "null", "null", "null");
    } finally {
      engine.stop(0);
    }
  }

  @Test
  void shouldFailWhenNothingListens() throws Exception {
    // Given
    int port = Ports.free("127.0.0.1");

    // When
    int code = replay("--corpus", corpus().toString(), "--via-proxy", "http://127.0.0.1:" + port);

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err()).contains("6 of 6 requests failed");
    assertThat(console.out()).contains("status error 6");
  }

  @Test
  void shouldRejectAUrlThatIsNotHttp() throws Exception {
    assertThat(replay("--corpus", corpus().toString(), "--via-proxy", "ftp://x"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--via-proxy must be an http://");
  }

  private Path corpus() throws Exception {
    String system = "s".repeat(600);
    StringBuilder lines = new StringBuilder();
    for (int c = 1; c <= 3; c++) {
      lines
          .append("{\"id\":\"c")
          .append(c)
          .append("\",\"messages\":[")
          .append("{\"role\":\"system\",\"content\":\"")
          .append(system)
          .append("\"}");
      for (int t = 0; t < c; t++) {
        lines
            .append(",{\"role\":\"user\",\"content\":\"question ")
            .append(t)
            .append("\"}")
            .append(",{\"role\":\"assistant\",\"content\":\"answer ")
            .append(t)
            .append("\"}");
      }
      lines.append("]}\n");
    }
    return Files.writeString(dir.resolve("tiny.jsonl"), lines);
  }

  private int replay(String... args) {
    Terminal terminal = console.terminal();
    return new ReplayCommand(terminal).run(args);
  }
}
