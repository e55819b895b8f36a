package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.demo.Served;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.cli.Terminal;
import java.io.ByteArrayOutputStream;
import java.net.ServerSocket;
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
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

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
      assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Command.OK);
    }
    assertThat(served).hasSize(6);
    assertThat(served.stream().filter(Served::stream).count()).isEqualTo(3);
    assertThat(served).allSatisfy(s -> assertThat(s.usageSent()).isTrue());
    assertThat(served)
        .allSatisfy(s -> assertThat(s.responseId()).isEqualTo("chatcmpl-" + s.requestId()));
    // Later turns of a conversation share its system prompt and history: cached.
    assertThat(served.stream().mapToLong(Served::cachedTokens).sum()).isPositive();
    String summary = out.toString(StandardCharsets.UTF_8);
    assertThat(summary)
        .contains("replay: 6 requests from 3 conversations")
        .contains("status 200 6")
        .contains("streamed 3");
  }

  @Test
  void shouldFailWhenNothingListens() throws Exception {
    // Given
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }

    // When
    int code = replay("--corpus", corpus().toString(), "--via-proxy", "http://127.0.0.1:" + port);

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("6 of 6 requests failed");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("status error 6");
  }

  @Test
  void shouldRejectAUrlThatIsNotHttp() throws Exception {
    assertThat(replay("--corpus", corpus().toString(), "--via-proxy", "ftp://x"))
        .isEqualTo(Command.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--via-proxy must be an http://");
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
    Terminal terminal = Terminal.captured(out, err);
    return new ReplayCommand(terminal).run(args);
  }
}
