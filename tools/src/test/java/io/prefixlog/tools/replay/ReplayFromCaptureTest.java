package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.reconstruct.DeltaDump;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --from-capture} from a kcat -J dump to a small engine that records what it gets and
 * reports half of every prompt as cached.
 */
class ReplayFromCaptureTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final String ERASED = "the erased user's secret sentence";
  private static final byte[] A1 = chat("What is a KV cache?");
  private static final byte[] A2 = chat("What is a KV cache? And a prefix cache, in detail?");
  private static final byte[] B1 =
      "{\"model\":\"prefixlog-demo\",\"prompt\":\"Once upon a time\"}"
          .getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private HttpServer engine;

  /** What the engine got. */
  private record Received(String path, Map<String, List<String>> headers, byte[] body) {}

  @BeforeEach
  void startEngine() throws IOException {
    engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    engine.createContext("/", this::answer);
    engine.start();
  }

  @AfterEach
  void stopEngine() {
    engine.stop(0);
  }

  private void answer(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    received.add(
        new Received(exchange.getRequestURI().getPath(), exchange.getRequestHeaders(), body));
    byte[] answer =
        String.format(
                Locale.ROOT,
                "{\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":3,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":%d}}}",
                body.length,
                body.length / 2)
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, answer.length);
    exchange.getResponseBody().write(answer);
    exchange.close();
  }

  private static byte[] chat(String question) {
    return ("{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"user\",\"content\":\""
            + question
            + "\"}]}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Session a: two chat turns 400 ms apart (the second after the first's answer); session b: a
   * completion; session c: erased; session d: sent by an earlier capture replay; session e: not a
   * completion endpoint.
   */
  private Path dump() throws IOException {
    Map<String, String> aHeaders =
        Map.of(
            "x-session-id", "conv-a",
            "x-forwarded-for", "10.0.0.1",
            "x-request-id", "original-1",
            "openai-project", "p1");
    List<String> lines = new ArrayList<>();
    lines.add(
        CaptureDump.envelope(
            CaptureDump.turn(
                "aa", 1, T0, "/v1/chat/completions", "app/1", aHeaders, A1, 50.0, 100L, 0L),
            0));
    lines.add(
        CaptureDump.envelope(
            CaptureDump.turn(
                "dd",
                1,
                T0 + 100,
                "/v1/chat/completions",
                "prefixlog-capture-replay/0.1",
                Map.of("x-session-id", "conv-a"),
                A1,
                5.0,
                100L,
                100L),
            1));
    lines.add(
        CaptureDump.envelope(
            CaptureDump.turn(
                "bb",
                1,
                T0 + 200,
                "/v1/completions",
                "app/1",
                Map.of("x-session-id", "conv-b"),
                B1,
                20.0,
                50L,
                null),
            2));
    var erased =
        CaptureDump.turn(
            "cc",
            1,
            T0 + 300,
            "/v1/chat/completions",
            "app/1",
            Map.of(),
            chat(ERASED),
            10.0,
            80L,
            0L);
    lines.add(CaptureDump.envelope(erased, 3));
    lines.add(
        CaptureDump.envelope(
            CaptureDump.turn(
                "ee", 1, T0 + 350, "/v1/models", "app/1", Map.of(), A1, 1.0, null, null),
            4));
    lines.add(
        CaptureDump.envelope(
            CaptureDump.turn(
                "aa", 2, T0 + 400, "/v1/chat/completions", "app/1", aHeaders, A2, 60.0, 200L, 100L),
            5));
    lines.add(DeltaDump.envelope(erased.key(), null, 6));
    return Files.write(dir.resolve("deltas.jsonl"), lines, StandardCharsets.UTF_8);
  }

  private int replay(String... args) {
    return new ReplayCommand(console.terminal()).run(args);
  }

  private String url() {
    return "http://127.0.0.1:" + engine.getAddress().getPort();
  }

  @Test
  void shouldSendEveryCapturedRequestAgainAndCompareTheFigures() throws IOException {
    // Given
    Path dump = dump();

    // When
    int code =
        replay("--from-capture", "--file", dump.toString(), "--via-proxy", url(), "--speed", "2");

    // Then
    String stdout = console.out();
    assertThat(code).as(stdout + console.err()).isEqualTo(Command.OK);
    // Byte for byte, each to its captured path; a session's turns in order (a2 waited for a1's
    // answer). Across sessions the order is the schedule's, which a cold client may not keep to
    // within the 100 ms between a1 and b1.
    assertThat(received)
        .extracting(r -> r.path() + " " + new String(r.body(), StandardCharsets.UTF_8))
        .containsExactlyInAnyOrder(
            "/v1/chat/completions " + new String(A1, StandardCharsets.UTF_8),
            "/v1/completions " + new String(B1, StandardCharsets.UTF_8),
            "/v1/chat/completions " + new String(A2, StandardCharsets.UTF_8));
    assertThat(received.get(2).body()).isEqualTo(A2);
    // The session headers go again; the original's hop and request id do not.
    Received a2 = received.get(2);
    Received b1 =
        received.stream().filter(r -> r.path().equals("/v1/completions")).findFirst().orElseThrow();
    assertThat(a2.headers().get("X-session-id")).containsExactly("conv-a");
    assertThat(a2.headers().get("Openai-project")).containsExactly("p1");
    assertThat(a2.headers()).doesNotContainKey("X-forwarded-for");
    assertThat(a2.headers().get("X-request-id").get(0)).startsWith("replay-").endsWith("-2");
    assertThat(a2.headers().get("User-agent").get(0)).startsWith("prefixlog-capture-replay/");
    assertThat(b1.headers().get("X-session-id")).containsExactly("conv-b");
    // Nothing of the erased session was sent, and no body reaches the output.
    assertThat(received)
        .noneSatisfy(
            r -> assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains(ERASED));
    assertThat(stdout + console.err()).doesNotContain(ERASED).doesNotContain("KV cache");

    assertThat(stdout)
        .contains("turns: 5 rebuilt and checked, 1 erased (never rebuilt, not sent)")
        .contains("1 not a POST to /v1/chat/completions or /v1/completions")
        .contains("1 sent by an earlier capture replay")
        .contains("sent 3 requests of 2 sessions")
        .contains("schedule: captured over 0.4 s, due over 0.2 s at --speed 2")
        .contains("status 200 3");
    // Original: 100 of 350 prompt tokens cached; replay: half of each body's bytes.
    long prompt = A1.length + A2.length + B1.length;
    long cached = A1.length / 2 + A2.length / 2 + B1.length / 2;
    assertThat(stdout)
        .contains("100 / 350 (28.6 %)")
        .contains(
            String.format(
                Locale.ROOT,
                "%d / %d (%.1f %%)  %+.1f points",
                cached,
                prompt,
                100.0 * cached / prompt,
                100.0 * cached / prompt - 100.0 * 100 / 350))
        .containsPattern("chat prefixlog-demo +original +2 ")
        .containsPattern("completions prefixlog-demo +original +1 ")
        .containsPattern("all +original +3 ");
  }

  @Test
  void shouldReplayTheSameWholeSessionsForAFraction() throws IOException {
    // Given
    Path dump = dump();
    boolean aIn = SessionSample.position("aa") < 0.5;
    boolean bIn = SessionSample.position("bb") < 0.5;

    // When
    int code =
        replay(
            "--from-capture",
            "--file",
            dump.toString(),
            "--via-proxy",
            url(),
            "--speed",
            "100",
            "--sample-sessions",
            "0.5");

    // Then
    List<byte[]> expected = new ArrayList<>();
    if (aIn) {
      expected.add(A1);
    }
    if (bIn) {
      expected.add(B1);
    }
    if (aIn) {
      expected.add(A2);
    }
    if (expected.isEmpty()) {
      assertThat(code).isEqualTo(Command.FAILED);
      assertThat(console.err()).contains("no request to replay");
    } else {
      assertThat(code).isEqualTo(Command.OK);
    }
    assertThat(received).extracting(Received::body).containsExactlyElementsOf(expected);
  }

  @Test
  void shouldRefuseAValueOnlyDumpWithTombstones() throws IOException {
    // Given
    Path dump =
        Files.writeString(
            dir.resolve("values.jsonl"),
            "{\"schema_version\":3,\"session_key\":\"aa\",\"seq\":1}\n\n");

    // When
    int code = replay("--from-capture", "--file", dump.toString(), "--via-proxy", url());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err()).contains("1 empty or null lines").contains("kcat -J");
    assertThat(received).isEmpty();
  }

  @Test
  void shouldRefuseOptionsOfTheOtherMode() throws IOException {
    String file = dump().toString();
    assertThat(replay("--from-capture", "--file", file)).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--from-capture needs --via-proxy");
    assertThat(replay("--from-capture", "--via-proxy", url(), "--rate", "5"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("--rate replays the corpora; --from-capture replays the capture");
    assertThat(replay("--speed", "2")).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--speed needs --from-capture");
    assertThat(replay("--from-capture", "--via-proxy", url(), "--sample-sessions", "1.5"))
        .isEqualTo(Command.USAGE);
    assertThat(replay("--from-capture", "--via-proxy", url(), "--speed", "0"))
        .isEqualTo(Command.USAGE);
    assertThat(
            replay("--from-capture", "--via-proxy", url(), "--file", file, "--bootstrap", "x:9092"))
        .isEqualTo(Command.USAGE);
    assertThat(received).isEmpty();
  }
}
