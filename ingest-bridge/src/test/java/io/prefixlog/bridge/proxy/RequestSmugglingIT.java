package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.config.Settings;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Request smuggling (issue 13, item 2): requests whose framing is ambiguous — Content-Length and
 * Transfer-Encoding together, duplicate or malformed lengths, obfuscated or repeated
 * Transfer-Encoding, chunked bodies in HTTP/1.0 — sent byte for byte over raw sockets to the proxy,
 * in front of an upstream that parses leniently (the length wins) and counts what it parses. One
 * event loop and one pooled upstream connection: every case and the control request after it share
 * the upstream connection a desync would poison.
 *
 * <p>Each case is either refused (400, connection closed, nothing reaches the upstream) or
 * forwarded as exactly one well-framed request whose body is what RFC 9112 §6.3 says the client
 * sent; then a control request on a new client connection must reach the upstream exactly, alone.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RequestSmugglingIT {
  private static LenientUpstream upstream;
  private static CaptureProxy proxy;
  private static int controls;

  enum Outcome {
    REFUSED,
    FORWARDED
  }

  record Case(String name, String request, Outcome outcome, String body) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    String chunkedAbc = "3\r\nabc\r\n0\r\n\r\n";
    return Stream.of(
        // Both lengths: framed by the chunks, the length dropped (RFC 9112 §6.3); were it kept,
        // the lenient upstream would read by it and the control request after would come apart.
        forwarded("cl-te", "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n", ""),
        forwarded(
            "te-cl",
            "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
            "8\r\nSMUGGLED\r\n0\r\n\r\n",
            "SMUGGLED"),
        refused("cl-twice-different", "Content-Length: 3\r\nContent-Length: 5\r\n", "abcde"),
        refused("cl-twice-same", "Content-Length: 3\r\nContent-Length: 3\r\n", "abc"),
        refused("cl-list", "Content-Length: 3, 3\r\n", "abc"),
        refused("cl-plus", "Content-Length: +3\r\n", "abc"),
        refused("cl-negative", "Content-Length: -1\r\n", "abc"),
        refused("cl-hex", "Content-Length: 0x3\r\n", "abc"),
        refused("cl-two-numbers", "Content-Length: 3 3\r\n", "abc"),
        refused("te-xchunked", "Transfer-Encoding: xchunked\r\nContent-Length: 3\r\n", "abc"),
        refused("te-chunked-identity", "Transfer-Encoding: chunked, identity\r\n", chunkedAbc),
        refused("te-identity-chunked", "Transfer-Encoding: identity, chunked\r\n", chunkedAbc),
        refused("te-space-before-colon", "Transfer-Encoding : chunked\r\n", chunkedAbc),
        refused(
            "te-twice",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n",
            chunkedAbc),
        refused(
            "te-identity-with-cl", "Transfer-Encoding: identity\r\nContent-Length: 3\r\n", "abc"),
        refused("te-gzip", "Transfer-Encoding: gzip, chunked\r\n", chunkedAbc),
        new Case(
            "http10-chunked",
            "POST /http10-chunked HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunkedAbc,
            Outcome.REFUSED,
            null),
        refused(
            "chunk-size-overflow",
            "Transfer-Encoding: chunked\r\n",
            "fffffffffffffffff\r\nabc\r\n"),
        forwarded("te-tab", "Transfer-Encoding:\tchunked\r\n", chunkedAbc, "abc"),
        forwarded("te-upper-case", "Transfer-Encoding: CHUNKED\r\n", chunkedAbc, "abc"),
        forwarded("chunked-plain", "Transfer-Encoding: chunked\r\n", chunkedAbc, "abc"),
        forwarded("cl-plain", "Content-Length: 3\r\n", "abc", "abc"),
        new Case(
            "bare-lf",
            "POST /bare-lf HTTP/1.1\nHost: x\nContent-Length: 3\n\nabc",
            Outcome.REFUSED,
            null));
  }

  private static Case refused(String name, String framing, String body) {
    return new Case(
        name,
        "POST /" + name + " HTTP/1.1\r\nHost: x\r\n" + framing + "\r\n" + body,
        Outcome.REFUSED,
        null);
  }

  private static Case forwarded(String name, String framing, String body, String decoded) {
    return new Case(
        name,
        "POST /" + name + " HTTP/1.1\r\nHost: x\r\n" + framing + "\r\n" + body,
        Outcome.FORWARDED,
        decoded);
  }

  @BeforeAll
  static void start(KafkaCluster kafka) throws Exception {
    upstream = new LenientUpstream();
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_PROXY_UPSTREAM", upstream.uri().toString());
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", "smuggling.");
    settings.put("PREFIXLOG_PROXY_PORT", "0");
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_SESSION_SECRET", "smuggling-it-session-secret");
    // One event loop, one upstream connection: every request shares the pooled connection.
    settings.put("PREFIXLOG_PROXY_EVENT_LOOPS", "1");
    settings.put("PREFIXLOG_PROXY_MAX_CONNECTIONS", "1");
    proxy = CaptureProxy.start(ProxyConfig.fromSettings(Settings.of(settings)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
    if (upstream != null) {
      upstream.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void shouldRefuseAmbiguousFramingOrForwardExactlyOneRequest(Case c) throws Exception {
    // Given
    int before = upstream.parsed().size();

    // When
    Reply reply = exchange(c.request());

    // Then
    List<LenientUpstream.Parsed> seen = upstream.parsed().subList(before, upstream.parsed().size());
    if (c.outcome() == Outcome.REFUSED) {
      assertThat(reply.status()).as(reply.toString()).isIn(400, -1);
      assertThat(reply.closed()).as("connection closed after the refusal").isTrue();
      assertThat(seen).as("nothing reached the upstream").isEmpty();
    } else {
      assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
      assertThat(seen).hasSize(1);
      assertThat(seen.get(0).path()).isEqualTo("/" + c.name());
      assertThat(seen.get(0).bodyText()).isEqualTo(c.body());
    }

    // When: a plain request follows on another connection (the same pooled upstream one)
    String control = "control-" + (++controls) + "-after-" + c.name();
    Reply after =
        exchange(
            "POST /"
                + control
                + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + control.length()
                + "\r\n\r\n"
                + control);

    // Then: it arrives whole and alone
    assertThat(after.status()).isEqualTo(200);
    List<LenientUpstream.Parsed> all = upstream.parsed();
    LenientUpstream.Parsed last = all.get(all.size() - 1);
    assertThat(last.path()).isEqualTo("/" + control);
    assertThat(last.bodyText()).isEqualTo(control);
    assertThat(all.size() - before)
        .as("requests the upstream parsed: %s", all.subList(before, all.size()))
        .isEqualTo(c.outcome() == Outcome.FORWARDED ? 2 : 1);
  }

  /** The status of the first response (-1 when none) and whether the connection then closed. */
  record Reply(int status, boolean closed, String text) {}

  private static Reply exchange(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
      socket.setSoTimeout(5000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int status = -1;
      boolean closed = false;
      try {
        int b;
        while ((b = in.read()) >= 0) {
          head.write(b);
          if (head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            break;
          }
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        if (text.startsWith("HTTP/1.")) {
          status = Integer.parseInt(text.substring(9, 12));
          long length = contentLength(text);
          if (length > 0) {
            in.readNBytes((int) length);
          }
        }
        if (status != 200) {
          // Closed: the next read ends the stream (or the server resets the connection).
          socket.setSoTimeout(1500);
          closed = in.read() < 0;
        }
      } catch (SocketTimeoutException e) {
        closed = false;
      } catch (IOException e) {
        closed = true;
      }
      return new Reply(status, closed, head.toString(StandardCharsets.ISO_8859_1));
    }
  }

  private static long contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        return Long.parseLong(line.substring(15).trim());
      }
    }
    return -1;
  }
}
