package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a client connection may hold without doing its part (issue 13, item 1), on a real proxy in
 * front of {@link TestUpstream}: the connection cap, the head timeout, the idle, stalled-body and
 * stalled-reader timeouts (and that a slow engine trips none of them), and the ingest endpoint's
 * concurrency bound and record-size check.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientLimitsIT {
  /**
   * One client for the class: a client made per call and dropped at once hung a test on a response
   * whose bytes had all arrived (HeaderOnlyLoadIT).
   */
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final String TOKEN = "ingest-token-0123456789";

  private TestUpstream upstream;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    upstream = new TestUpstream();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    upstream.close();
  }

  @Test
  void shouldCloseAConnectionThatSendsNoCompleteHeadInTime(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy =
        start(config(kafka).withClientLimits(100, Duration.ofMillis(500), Duration.ofSeconds(30)));

    // When: half a head, then nothing
    try (Socket socket = connect(proxy)) {
      write(
          socket, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 16777216\r\n");
      long start = System.nanoTime();

      // Then: closed after the head timeout, counted
      assertThat(closedWithin(socket, Duration.ofSeconds(5))).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(400));
    }
    assertThat(
            Meters.count(
                proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "header"))
        .isEqualTo(1);
  }

  @Test
  void shouldCloseAKeepAliveConnectionIdleForTheIdleTimeoutButNotOneWaitingForTheEngine(
      KafkaCluster kafka) throws Exception {
    // Given: an idle timeout shorter than the engine's answer
    CaptureProxy proxy =
        start(config(kafka).withClientLimits(100, Duration.ofSeconds(30), Duration.ofMillis(700)));

    try (Socket socket = connect(proxy)) {
      // When: a request the engine answers after 1.5 s
      write(socket, "GET /slow?ms=1500 HTTP/1.1\r\nHost: x\r\n\r\n");

      // Then: answered (waiting for the engine is not the client's silence)
      assertThat(readHead(socket)).startsWith("HTTP/1.1 200");

      // When: the client then says nothing
      // Then: the keep-alive connection is closed after the idle timeout
      assertThat(closedWithin(socket, Duration.ofSeconds(5))).isTrue();
    }
    assertThat(
            Meters.count(proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "idle"))
        .isEqualTo(1);
  }

  @Test
  void shouldCloseAConnectionWhoseBodyStalls(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy =
        start(config(kafka).withClientLimits(100, Duration.ofSeconds(30), Duration.ofMillis(700)));

    // When: a head announcing 1 MiB, 10 bytes of it, then nothing
    try (Socket socket = connect(proxy)) {
      write(
          socket,
          "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n0123456789");

      // Then
      assertThat(closedWithin(socket, Duration.ofSeconds(5))).isTrue();
    }
    assertThat(
            Meters.count(proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "body"))
        .isEqualTo(1);
  }

  @Test
  void shouldNotTakeAWaitForAnEngineConnectionForAStalledBody(KafkaCluster kafka) throws Exception {
    // Given: one engine connection, held for 2 s by a first request, and an idle timeout of 700 ms
    CaptureProxy proxy =
        start(
            config(kafka)
                .withClientLimits(100, Duration.ofSeconds(30), Duration.ofMillis(700))
                .with(ListenConfig.EVENT_LOOPS, 1)
                .with(UpstreamConfig.MAX_CONNECTIONS, 1));
    try (Socket first = connect(proxy);
        Socket second = connect(proxy)) {
      write(first, "GET /slow?ms=2000 HTTP/1.1\r\nHost: x\r\n\r\n");
      Thread.sleep(200);

      // When: a second request, its whole body sent (1 MiB: above what the proxy reads before
      // it connects), waits for that connection
      write(
          second,
          "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
              + "Content-Length: 1048576\r\n\r\n"
              + "x".repeat(1 << 20));

      // Then: both are answered; the proxy waiting for the engine is not the client's silence
      assertThat(readHead(first)).startsWith("HTTP/1.1 200");
      assertThat(readHead(second)).startsWith("HTTP/1.1 200");
    }
    assertThat(
            Meters.count(proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "body"))
        .isZero();
  }

  @Test
  void shouldNotTakeAnEngineSlowToReadTheBodyForAStalledBody(KafkaCluster kafka) throws Exception {
    // Given: an engine that reads a request's body only after 3 s, and an idle timeout of 700 ms
    CaptureProxy proxy =
        start(config(kafka).withClientLimits(100, Duration.ofSeconds(30), Duration.ofMillis(700)));
    int length = 48 << 20;

    try (Socket socket = connect(proxy)) {
      // When: a client sends a body larger than the sockets on the way hold, as fast as it may
      // (the proxy stops reading it while the engine's write queue is full)
      write(
          socket,
          "POST /lazy?ms=3000 HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
              + "Content-Length: "
              + length
              + "\r\n\r\n");
      OutputStream out = socket.getOutputStream();
      byte[] piece = new byte[1 << 20];
      java.util.Arrays.fill(piece, (byte) 'x');
      for (int sent = 0; sent < length; sent += piece.length) {
        out.write(piece);
      }
      out.flush();

      // Then: the engine gets all of it and answers; the wait was the engine's, not the client's
      assertThat(readHead(socket)).startsWith("HTTP/1.1 200");
    }
    assertThat(
            Meters.count(proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "body"))
        .isZero();
  }

  @Test
  void shouldCloseAClientThatStopsReadingItsResponseAndLetTheEngineGo(KafkaCluster kafka)
      throws Exception {
    // Given: an idle timeout of 700 ms, and an engine that streams as fast as it is read
    CaptureProxy proxy =
        start(config(kafka).withClientLimits(100, Duration.ofSeconds(30), Duration.ofMillis(700)));

    try (Socket socket = new Socket()) {
      // (a small window, so that what the client does not read stays with the proxy)
      socket.setReceiveBufferSize(4096);
      socket.connect(new java.net.InetSocketAddress("127.0.0.1", proxy.port()));
      write(socket, "GET /firehose HTTP/1.1\r\nHost: x\r\n\r\n");

      // When: the client reads nothing
      // Then: after the idle timeout the exchange is ended while the client still reads nothing:
      // counted, and the engine's stream let go rather than left paused until the upstream timeout
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(
                          Meters.count(
                              proxy.metrics(),
                              "prefixlog_proxy_client_timeouts_total",
                              "kind",
                              "response"))
                      .isEqualTo(1));
      awaitGauge(proxy, "prefixlog_proxy_in_flight", 0);
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(upstream.firehoseAborted).hasValue(1));
      // and the connection is closed: what the proxy had written before is there, then the end,
      // long before the engine's 64 MiB
      long read = bytesUntilClosed(socket, 4 << 20, Duration.ofSeconds(5));
      assertThat(read).as("bytes read before the proxy closed").isBetween(1L, 4L << 20);
    }
  }

  @Test
  void shouldCloseAConnectionBeyondTheCapAndServeAgainOnceOneCloses(KafkaCluster kafka)
      throws Exception {
    // Given: a cap of 3, all three taken by clients that sent nothing yet
    CaptureProxy proxy =
        start(config(kafka).withClientLimits(3, Duration.ofSeconds(30), Duration.ofSeconds(30)));
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(connect(proxy));
    }
    awaitGauge(proxy, "prefixlog_proxy_client_connections", 3);

    // When: a fourth connects
    try (Socket fourth = connect(proxy)) {
      // Then: it is closed at once, counted
      assertThat(closedWithin(fourth, Duration.ofSeconds(5))).isTrue();
    }
    assertThat(Meters.count(proxy.metrics(), "prefixlog_proxy_client_connections_refused_total"))
        .isEqualTo(1);

    // When: one of the three goes
    held.remove(0).close();
    awaitGauge(proxy, "prefixlog_proxy_client_connections", 2);

    // Then: a real request is served
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/slow?ms=1"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    for (Socket socket : held) {
      socket.close();
    }
  }

  @Test
  void shouldAnswerAnIngestRequestBeyondTheConcurrencyBoundWith503(KafkaCluster kafka)
      throws Exception {
    // Given: one ingest request at a time, and one whose body is still coming
    CaptureProxy proxy =
        start(config(kafka).with(IngestConfig.TOKEN, TOKEN).with(IngestConfig.MAX_CONCURRENT, 1));
    try (Socket slow = connect(proxy)) {
      write(
          slow,
          "POST "
              + IngestHandler.PATH
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
              + TOKEN
              + "\r\nContent-Length: 100000\r\n\r\n{\"schema");
      Thread.sleep(300);

      // When: another ingest request
      HttpResponse<String> second = ingest(proxy, rawEvent("ing-1", "hello"));

      // Then
      assertThat(second.statusCode()).isEqualTo(503);
      assertThat(second.headers().firstValue("Retry-After")).contains("1");
      assertThat(second.body()).contains("PREFIXLOG_INGEST_MAX_CONCURRENT");
    }
    // and once the first is gone, the next one is read
    Thread.sleep(300);
    assertThat(ingest(proxy, rawEvent("ing-2", "hello")).statusCode()).isEqualTo(200);
  }

  @Test
  void shouldRejectAnIngestLineKafkaWouldRefuseInsteadOfAcceptingIt(KafkaCluster kafka)
      throws Exception {
    // Given: a producer that takes records of up to 4000 bytes
    CaptureProxy proxy =
        start(
            config(kafka)
                .with(IngestConfig.TOKEN, TOKEN)
                .withKafka(Map.of("max.request.size", "4000")));

    // When: a valid line of about 6 KB, and a small one
    HttpResponse<String> response =
        ingest(proxy, rawEvent("big", "x".repeat(6000)) + "\n" + rawEvent("small", "hello"));

    // Then: the big one is rejected with the reason, the small one accepted
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body())
        .contains("\"accepted\":1,\"rejected\":1")
        .contains("\"reason\":\"record_too_large\"")
        .contains("max.request.size is 4000");
  }

  private ProxyConfig config(KafkaCluster kafka) {
    return ProxyConfig.defaults(upstream.uri(), kafka.bootstrapServers())
        .withListen("127.0.0.1", 0)
        .with(MetricsConfig.PORT, -1)
        .with(PublishConfig.TOPIC_PREFIX, "limits.")
        .with(CaptureConfig.SESSION_SECRET, "client-limits-it-secret-0123");
  }

  private CaptureProxy start(ProxyConfig config) throws IOException {
    CaptureProxy proxy = CaptureProxy.start(config);
    closeables.add(proxy);
    return proxy;
  }

  private static Socket connect(CaptureProxy proxy) throws IOException {
    return new Socket("127.0.0.1", proxy.port());
  }

  private static void write(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static String readHead(Socket socket) throws IOException {
    socket.setSoTimeout(10_000);
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0) {
      head.append((char) b);
      if (head.toString().endsWith("\r\n\r\n")) {
        String text = head.toString();
        int at = text.toLowerCase(java.util.Locale.ROOT).indexOf("content-length:");
        if (at >= 0) {
          int end = text.indexOf("\r\n", at);
          in.readNBytes(Integer.parseInt(text.substring(at + 15, end).trim()));
        }
        return text;
      }
    }
    return head.toString();
  }

  /** True when the server closes the connection within {@code timeout}. */
  private static boolean closedWithin(Socket socket, Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
    try {
      InputStream in = socket.getInputStream();
      while (in.read() >= 0) {
        // drain whatever comes before the close
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /**
   * Reads until the connection closes (or is reset): the bytes read, or -1 when {@code limit} bytes
   * came or {@code timeout} passed first.
   */
  private static long bytesUntilClosed(Socket socket, long limit, Duration timeout)
      throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
    long deadline = System.nanoTime() + timeout.toNanos();
    long read = 0;
    byte[] buffer = new byte[64 << 10];
    try {
      InputStream in = socket.getInputStream();
      while (read <= limit && System.nanoTime() < deadline) {
        int n = in.read(buffer);
        if (n < 0) {
          return read;
        }
        read += n;
      }
      return -1;
    } catch (SocketTimeoutException e) {
      return -1;
    } catch (IOException e) {
      return read; // reset
    }
  }

  private static void awaitGauge(CaptureProxy proxy, String name, double value) {
    await()
        .alias(name)
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> assertThat(gauge(proxy, name)).isEqualTo(value));
  }

  /** A gauge's value (NaN when it is not registered). */
  private static double gauge(CaptureProxy proxy, String name) {
    return Meters.gaugeValue(proxy.metrics(), name);
  }

  private static HttpResponse<String> ingest(CaptureProxy proxy, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + IngestHandler.PATH))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + TOKEN)
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String rawEvent(String requestId, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return Json.mapper()
        .writeValueAsString(
            new RawRequestEvent(
                1,
                requestId,
                1_700_000_000_000L,
                "0123456789abcdef0123456789abcdef",
                "fallback",
                "10.0.0.1",
                "middleware/1",
                null,
                "POST",
                "/v1/chat/completions",
                "m",
                body,
                "utf-8",
                (long) bytes.length,
                Sha256.hex(bytes),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null));
  }
}
