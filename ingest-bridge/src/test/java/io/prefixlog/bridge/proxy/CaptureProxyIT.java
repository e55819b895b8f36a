package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.Usage;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The proxy with a real HTTP client (the JDK's, and raw sockets for chunked uploads and
 * disconnects) in front of {@link TestUpstream}, publishing to a real broker; each test reads the
 * topic back.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CaptureProxyIT {
  private static final String SECRET = "test-session-secret-0123456789";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private TestUpstream upstream;
  private String topic;
  private String prefix;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp(KafkaCluster kafka, TestInfo test) throws Exception {
    upstream = new TestUpstream();
    prefix = "proxy-" + test.getTestMethod().orElseThrow().getName() + ".";
    topic = prefix + "requests.raw";
    TopicReader.createTopic(kafka.bootstrapServers(), topic);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    upstream.close();
  }

  private ProxyConfig config(KafkaCluster kafka) {
    return ProxyConfig.defaults(upstream.uri(), kafka.bootstrapServers())
        .withListen("127.0.0.1", 0)
        .with(MetricsConfig.PORT, 0)
        .with(PublishConfig.TOPIC_PREFIX, prefix)
        .with(CaptureConfig.SESSION_SECRET, SECRET);
  }

  private CaptureProxy start(ProxyConfig config) throws IOException {
    CaptureProxy proxy = CaptureProxy.start(config);
    closeables.add(proxy);
    return proxy;
  }

  private TopicReader reader(KafkaCluster kafka) {
    TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic);
    closeables.add(reader);
    return reader;
  }

  private static URI at(CaptureProxy proxy, String path) {
    return URI.create("http://127.0.0.1:" + proxy.port() + path);
  }

  private URI direct(String path) {
    return upstream.uri().resolve(path);
  }

  private static RawRequestEvent event(ConsumerRecord<String, byte[]> record) throws IOException {
    return RawEventFrame.readAsVersion1(record.value());
  }

  /**
   * The event of the request the client sent under {@code requestId} ({@code client_request_id}),
   * or, when it sent none, whose generated id that is ({@code request_id}).
   */
  private static RawRequestEvent byRequestId(
      List<ConsumerRecord<String, byte[]>> records, String requestId) throws IOException {
    for (ConsumerRecord<String, byte[]> record : records) {
      RawRequestEvent event = event(record);
      if (clientIdOf(event).equals(requestId)) {
        assertThat(record.key()).isEqualTo(event.sessionKey());
        return event;
      }
    }
    throw new AssertionError("no event with request_id " + requestId + " in " + records.size());
  }

  /** The client's id of a proxied request, or the id of an ingested event or generated one. */
  private static String clientIdOf(RawRequestEvent event) {
    return event.clientRequestId() != null ? event.clientRequestId() : event.requestId();
  }

  private static HttpRequest.Builder chat(URI uri, String body) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer sk-SECRET-authorization")
        .header("X-Api-Key", "SECRET-x-api-key")
        .header("Cookie", "session=SECRET-cookie")
        .header("User-Agent", "prefixlog-test/1.0")
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
  }

  /** Request headers as the upstream saw them, minus those a proxy adds or rewrites. */
  private static Map<String, List<String>> endToEnd(TestUpstream.Received received) {
    Map<String, List<String>> headers = new HashMap<>(received.headers());
    for (String name :
        List.of("host", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host")) {
      headers.remove(name);
    }
    return headers;
  }

  @Test
  void shouldForwardJsonByteExactAndCaptureUsageWithoutSecrets(KafkaCluster kafka)
      throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);
    String body =
        "{\"model\":\"m1\",\"messages\":[{\"role\":\"user\",\"content\":\"h\\u00e9llo \uD83D\uDC4B"
            + " caf\u00e9\"}],\"stream\":false}";

    // When: the same request directly and through the proxy
    HttpResponse<byte[]> direct =
        http.send(
            chat(direct("/v1/chat/completions"), body)
                .header("X-Request-Id", "req-json-1")
                .header("X-Session-ID", "conversation-42")
                .header("x-test-cached", "7")
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    TestUpstream.Received directReceived = upstream.last();
    HttpResponse<byte[]> proxied =
        http.send(
            chat(at(proxy, "/v1/chat/completions"), body)
                .header("X-Request-Id", "req-json-1")
                .header("X-Session-ID", "conversation-42")
                .header("x-test-cached", "7")
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    TestUpstream.Received proxiedReceived = upstream.last();

    // Then: identical bytes both ways, credentials forwarded to the engine
    assertThat(proxied.statusCode()).isEqualTo(direct.statusCode()).isEqualTo(200);
    assertThat(proxied.body()).isEqualTo(direct.body());
    assertThat(proxied.headers().firstValue("content-type"))
        .isEqualTo(direct.headers().firstValue("content-type"));
    assertThat(proxied.headers().firstValue("content-length"))
        .isEqualTo(direct.headers().firstValue("content-length"));
    assertThat(proxiedReceived.body()).isEqualTo(directReceived.body());
    assertThat(proxiedReceived.method()).isEqualTo("POST");
    assertThat(proxiedReceived.target()).isEqualTo(directReceived.target());
    assertThat(endToEnd(proxiedReceived)).isEqualTo(endToEnd(directReceived));
    assertThat(proxiedReceived.header("authorization")).isEqualTo("Bearer sk-SECRET-authorization");
    assertThat(proxiedReceived.header("x-forwarded-for")).isEqualTo("127.0.0.1");

    // And: the event
    List<ConsumerRecord<String, byte[]>> records = reader.await(1, WAIT);
    assertThat(records).hasSize(1);
    RawRequestEvent event = byRequestId(records, "req-json-1");
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    assertThat(event.schemaVersion()).isEqualTo(1);
    // The capture's own id is its request id; the client's id is kept beside it
    assertThat(event.captureId())
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
        .isEqualTo(event.requestId());
    assertThat(event.clientRequestId()).isEqualTo("req-json-1");
    assertThat(event.method()).isEqualTo("POST");
    assertThat(event.path()).isEqualTo("/v1/chat/completions");
    assertThat(event.model()).isEqualTo("m1");
    assertThat(event.body()).isEqualTo(body);
    assertThat(event.bodyEncoding()).isEqualTo("utf-8");
    assertThat(event.bodyLen()).isEqualTo(bytes.length);
    assertThat(event.bodySha256()).isEqualTo(Sha256.hex(bytes));
    assertThat(event.truncated()).isNull();
    assertThat(event.sessionKeySource()).isEqualTo("header:x-session-id");
    assertThat(event.sessionKey()).matches("[0-9a-f]{32}").doesNotContain("conversation");
    assertThat(event.userAgent()).isEqualTo("prefixlog-test/1.0");
    assertThat(event.clientAddr()).isEqualTo("127.0.0.1");
    // The session header's value is what the key hides: the key and its source are stored, never
    // the value
    assertThat(event.headers())
        .containsEntry("x-request-id", "req-json-1")
        .doesNotContainKeys(
            "x-session-id", "authorization", "x-api-key", "cookie", "x-test-cached");
    assertThat(new String(records.get(0).value(), StandardCharsets.ISO_8859_1))
        .doesNotContain("conversation-42");
    assertThat(event.response().status()).isEqualTo(200);
    assertThat(event.response().id()).isEqualTo("chatcmpl-req-json-1");
    assertThat(event.response().usage()).isEqualTo(new Usage(bytes.length / 4L, 3L, 7L));
    assertThat(event.response().error()).isNull();
    assertThat(event.response().latencyMs()).isGreaterThan(0.0);
    assertThat(event.response().ttfbMs()).isGreaterThan(0.0);
    assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8)).doesNotContain("SECRET");
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.RESPONSES, "code", "200")).isEqualTo(1);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.CAPTURE_BYTES)).isEqualTo(bytes.length);
    // The producer's callback counts a send once the broker acked it: a consumer may read the
    // record before that callback has run.
    await(() -> Meters.count(proxy.metrics(), ProxyMetrics.PUBLISHED) == 1);
  }

  @Test
  void shouldShareOnePortAmongEventLoopsAndServeOnEach(KafkaCluster kafka) throws Exception {
    // Given: three event loops on one (free) port
    CaptureProxy proxy = start(config(kafka).with(ListenConfig.EVENT_LOOPS, 3));
    TopicReader reader = reader(kafka);

    // When: twelve requests, each on a connection of its own
    for (int i = 0; i < 12; i++) {
      String body = "{\"model\":\"m\",\"user\":\"u" + i + "\"}";
      assertThat(postOnItsOwnConnection(proxy, "/v1/chat/completions", "x", body))
          .startsWith("HTTP/1.1 200");
    }

    // Then: every loop took connections, and every exchange was captured
    assertThat(proxy.exchangesPerEventLoop()).hasSize(3).allMatch(n -> n > 0);
    assertThat(proxy.exchangesPerEventLoop().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(12);
    assertThat(reader.await(12, WAIT)).hasSize(12);
  }

  @Test
  void shouldGenerateARequestIdAndSendItUpstream(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy =
        start(config(kafka).with(CaptureConfig.CLIENT_ADDR, CaptureConfig.ClientAddrMode.TRUNCATE));
    TopicReader reader = reader(kafka);

    // When: no X-Request-Id, a session in the body
    HttpResponse<String> response =
        http.send(
            chat(at(proxy, "/v1/chat/completions"), "{\"model\":\"m\",\"user\":\"alice\"}").build(),
            HttpResponse.BodyHandlers.ofString());

    // Then
    String generated = upstream.last().header("x-request-id");
    assertThat(generated)
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(response.body()).contains("\"id\":\"chatcmpl-" + generated + "\"");
    RawRequestEvent event = byRequestId(reader.await(1, WAIT), generated);
    assertThat(event.requestId()).isEqualTo(generated);
    assertThat(event.captureId()).isEqualTo(generated);
    assertThat(event.clientRequestId()).isNull();
    assertThat(event.response().id()).isEqualTo("chatcmpl-" + generated);
    assertThat(event.sessionKeySource()).isEqualTo("body:user");
    assertThat(event.clientAddr()).isEqualTo("127.0.0.0/24");
    assertThat(event.response().usage().cachedTokens()).isNull();
  }

  @Test
  void shouldStreamSseByteExactAndReadUsageFromTheFinalChunk(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);
    String withUsage =
        "{\"model\":\"m2\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}";
    String withoutUsage = "{\"model\":\"m2\",\"stream\":true,\"messages\":[]}";

    // When
    byte[][] direct = new byte[2][];
    byte[][] proxied = new byte[2][];
    String[] bodies = {withUsage, withoutUsage};
    for (int i = 0; i < 2; i++) {
      direct[i] =
          http.send(
                  chat(direct("/v1/chat/completions?events=20"), bodies[i])
                      .header("X-Request-Id", "req-sse-" + i)
                      .header("x-test-cached", "11")
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray())
              .body();
      HttpResponse<byte[]> response =
          http.send(
              chat(at(proxy, "/v1/chat/completions?events=20"), bodies[i])
                  .header("X-Request-Id", "req-sse-" + i)
                  .header("x-test-cached", "11")
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(response.headers().firstValue("content-type")).contains("text/event-stream");
      proxied[i] = response.body();
    }

    // Then
    assertThat(proxied[0]).isEqualTo(direct[0]);
    assertThat(proxied[1]).isEqualTo(direct[1]);
    List<ConsumerRecord<String, byte[]>> records = reader.await(2, WAIT);
    RawRequestEvent usage = byRequestId(records, "req-sse-0");
    assertThat(usage.response().usage())
        .isEqualTo(new Usage(withUsage.getBytes(StandardCharsets.UTF_8).length / 4L, 3L, 11L));
    assertThat(usage.response().id()).isEqualTo("chatcmpl-req-sse-0");
    assertThat(usage.model()).isEqualTo("m2");
    RawRequestEvent none = byRequestId(records, "req-sse-1");
    assertThat(none.response().usage()).isNull();
    assertThat(none.response().id()).isEqualTo("chatcmpl-req-sse-1");
    assertThat(none.response().status()).isEqualTo(200);
  }

  @Test
  void shouldPassEachStreamEventOnAsItIsProduced(KafkaCluster kafka) throws Exception {
    // Given: an upstream that sends one event and then waits until the test has seen it
    CaptureProxy proxy = start(config(kafka));

    // When
    HttpResponse<InputStream> response =
        http.send(
            HttpRequest.newBuilder(at(proxy, "/gated")).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    upstream.release();
    StringBuilder rest = new StringBuilder();
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      rest.append(line).append('\n');
    }

    // Then: the first event came through before the upstream was released
    assertThat(first).isEqualTo("data: {\"id\":\"first\"}");
    assertThat(rest.toString()).contains("\"released\":true").endsWith("data: [DONE]\n\n");
  }

  @Test
  void shouldForwardAChunkedUploadAndCaptureItWhole(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);
    List<String> chunks =
        List.of(
            "{\"model\":\"m3\",",
            "\"messages\":[{\"role\":\"user\",",
            "\"content\":\"\u00fcber\"}]}");
    String whole = String.join("", chunks);

    // When: a raw HTTP/1.1 request with Transfer-Encoding: chunked, written chunk by chunk
    byte[] response;
    try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-Id: req-chunked\r\n"
                  + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (String chunk : chunks) {
        byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Thread.sleep(20);
      }
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      response = socket.getInputStream().readAllBytes();
    }

    // Then
    byte[] expected = whole.getBytes(StandardCharsets.UTF_8);
    assertThat(upstream.last().body()).isEqualTo(expected);
    String text = new String(response, StandardCharsets.UTF_8);
    assertThat(text).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n" + whole);
    RawRequestEvent event = byRequestId(reader.await(1, WAIT), "req-chunked");
    assertThat(event.body()).isEqualTo(whole);
    assertThat(event.bodyLen()).isEqualTo(expected.length);
    assertThat(event.model()).isEqualTo("m3");
    assertThat(event.truncated()).isNull();
  }

  @Test
  void shouldForwardBodiesOverTheCaptureLimitWholeAndRecordThemTruncated(KafkaCluster kafka)
      throws Exception {
    // Given: a 64 KiB capture limit and a 200 KiB body (not valid UTF-8 at the cut: base64)
    CaptureProxy proxy = start(config(kafka).with(CaptureConfig.MAX_BODY_BYTES, 64L << 10));
    TopicReader reader = reader(kafka);
    byte[] body = new byte[200 << 10];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) (i % 251);
    }

    // When
    HttpResponse<byte[]> response =
        http.send(
            HttpRequest.newBuilder(at(proxy, "/echo"))
                .header("X-Request-Id", "req-large")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());

    // Then
    assertThat(response.body()).isEqualTo(body);
    assertThat(upstream.last().body()).isEqualTo(body);
    RawRequestEvent event = byRequestId(reader.await(1, WAIT), "req-large");
    assertThat(event.truncated()).isTrue();
    assertThat(event.bodyLen()).isEqualTo(64 << 10);
    assertThat(event.originalBodyLen()).isEqualTo(200 << 10);
    assertThat(event.bodyEncoding()).isEqualTo("base64");
    assertThat(java.util.Base64.getDecoder().decode(event.body()))
        .isEqualTo(Arrays.copyOf(body, 64 << 10));
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.TRUNCATED)).isEqualTo(1);
  }

  @Test
  void shouldRecordAClientThatDisconnectsMidStreamAndAbortTheUpstream(KafkaCluster kafka)
      throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);

    // When: the client reads three events and hangs up
    try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
      socket
          .getOutputStream()
          .write(
              "GET /forever HTTP/1.1\r\nHost: x\r\nX-Request-Id: req-gone\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream seen = new ByteArrayOutputStream();
      while (count(seen.toString(StandardCharsets.UTF_8), "data: ") < 3) {
        int b = in.read();
        assertThat(b).isNotNegative();
        seen.write(b);
      }
    }

    // Then
    RawRequestEvent event = byRequestId(reader.await(1, WAIT), "req-gone");
    assertThat(event.response().error()).isEqualTo("client_disconnect");
    assertThat(event.response().status()).isEqualTo(200);
    assertThat(event.method()).isEqualTo("GET");
    assertThat(event.bodyLen()).isZero();
    await(() -> upstream.foreverAborted.get() == 1);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.ERRORS, "kind", "client_disconnect"))
        .isEqualTo(1);
  }

  @Test
  void shouldAnswerUpstreamErrorsTimeoutsAndUnreachableUpstreams(KafkaCluster kafka)
      throws Exception {
    // Given: a 300 ms upstream timeout, and a port nothing listens on
    CaptureProxy proxy =
        start(config(kafka).withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(300)));
    int deadPort = Ports.free("127.0.0.1");
    CaptureProxy unreachable =
        start(
            config(kafka).with(UpstreamConfig.ORIGIN, URI.create("http://127.0.0.1:" + deadPort)));
    TopicReader reader = reader(kafka);

    // When
    HttpResponse<String> error =
        http.send(
            HttpRequest.newBuilder(at(proxy, "/status?code=503"))
                .header("X-Request-Id", "req-503")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> timeout =
        http.send(
            HttpRequest.newBuilder(at(proxy, "/slow?ms=3000"))
                .header("X-Request-Id", "req-slow")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> refused =
        http.send(
            HttpRequest.newBuilder(at(unreachable, "/v1/models"))
                .header("X-Request-Id", "req-refused")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());

    // Then
    assertThat(error.statusCode()).isEqualTo(503);
    assertThat(error.body()).isEqualTo("error 503\n");
    assertThat(timeout.statusCode()).isEqualTo(504);
    assertThat(timeout.headers().firstValue("x-prefixlog-error")).contains("upstream_timeout");
    assertThat(timeout.body()).startsWith("prefixlog proxy: upstream timeout");
    assertThat(refused.statusCode()).isEqualTo(502);
    assertThat(refused.headers().firstValue("x-prefixlog-error"))
        .contains("upstream_connect_failed");
    List<ConsumerRecord<String, byte[]>> records = reader.await(3, WAIT);
    assertThat(byRequestId(records, "req-503").response().status()).isEqualTo(503);
    assertThat(byRequestId(records, "req-503").response().error()).isNull();
    assertThat(byRequestId(records, "req-slow").response().status()).isEqualTo(504);
    assertThat(byRequestId(records, "req-slow").response().error()).isEqualTo("upstream_timeout");
    assertThat(byRequestId(records, "req-refused").response().status()).isEqualTo(502);
    assertThat(byRequestId(records, "req-refused").response().error())
        .isEqualTo("upstream_connect_failed");
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.ERRORS, "kind", "upstream_timeout"))
        .isEqualTo(1);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.RESPONSE_CLASSES, "class", "5xx"))
        .isEqualTo(2);
    assertThat(Meters.count(unreachable.metrics(), ProxyMetrics.RESPONSES, "code", "502"))
        .isEqualTo(1);
  }

  @Test
  void shouldTellTheEngineTheSessionWhenConfigured(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka).with(UpstreamConfig.SET_SESSION_HEADER, true));
    TopicReader reader = reader(kafka);

    // When: the session is in the body
    http.send(
        chat(at(proxy, "/v1/chat/completions"), "{\"model\":\"m\",\"session_id\":\"s-1\"}")
            .header("X-Request-Id", "req-session")
            .build(),
        HttpResponse.BodyHandlers.ofString());

    // Then: the engine got the session key, the same one the event carries
    RawRequestEvent event = byRequestId(reader.await(1, WAIT), "req-session");
    assertThat(event.sessionKeySource()).isEqualTo("body:session_id");
    assertThat(upstream.last().header("x-session-id")).isEqualTo(event.sessionKey());
    assertThat(upstream.last().body())
        .isEqualTo("{\"model\":\"m\",\"session_id\":\"s-1\"}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void shouldKeyHeaderlessConversationsApartAndTellTheEngine(KafkaCluster kafka) throws Exception {
    // Given: an SDK client that sends no session signal, two conversations, one of them twice
    CaptureProxy proxy = start(config(kafka).with(UpstreamConfig.SET_SESSION_HEADER, true));
    TopicReader reader = reader(kafka);
    String system = "{\"role\":\"system\",\"content\":\"Be brief.\"}";
    Map<String, String> bodies =
        Map.of(
            "req-a1",
            "{\"model\":\"m\",\"messages\":[" + system + ",{\"role\":\"user\",\"content\":\"A\"}]}",
            "req-b1",
            "{\"model\":\"m\",\"messages\":[" + system + ",{\"role\":\"user\",\"content\":\"B\"}]}",
            "req-a2",
            "{\"model\":\"m\",\"messages\":["
                + system
                + ",{\"role\":\"user\",\"content\":\"A\"},{\"role\":\"assistant\",\"content\":\"a\"},"
                + "{\"role\":\"user\",\"content\":\"A again\"}]}");

    // When
    for (String id : List.of("req-a1", "req-b1", "req-a2")) {
      http.send(
          chat(at(proxy, "/v1/chat/completions"), bodies.get(id))
              .header("X-Request-Id", id)
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }

    // Then: one key per conversation, and the engine was told each request's key
    List<ConsumerRecord<String, byte[]>> records = reader.await(3, WAIT);
    RawRequestEvent a1 = byRequestId(records, "req-a1");
    RawRequestEvent b1 = byRequestId(records, "req-b1");
    RawRequestEvent a2 = byRequestId(records, "req-a2");
    assertThat(List.of(a1.sessionKeySource(), b1.sessionKeySource(), a2.sessionKeySource()))
        .containsOnly("conversation");
    assertThat(a2.sessionKey()).isEqualTo(a1.sessionKey()).isNotEqualTo(b1.sessionKey());
    assertThat(upstream.received().stream().map(r -> r.header("x-session-id")).toList())
        .endsWith(a1.sessionKey(), b1.sessionKey(), a2.sessionKey());
  }

  @Test
  void shouldServeHealthAndMetrics(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka));
    http.send(
        HttpRequest.newBuilder(at(proxy, "/echo"))
            .POST(HttpRequest.BodyPublishers.ofString("x"))
            .build(),
        HttpResponse.BodyHandlers.ofString());

    // When
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + proxy.metricsPort() + "/health"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> metrics =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + proxy.metricsPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    // Then
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"ok\"");
    assertThat(metrics.body())
        .contains("prefixlog_proxy_responses_total{code=\"200\"} 1")
        .contains("prefixlog_proxy_responses_by_class_total{class=\"2xx\"} 1")
        .contains("prefixlog_proxy_queue_depth ")
        .contains("prefixlog_proxy_events_dropped_total{reason=\"queue_full\"} 0");
  }

  @Test
  void probeQueryStringKeysAreForwardedButNeverStored(KafkaCluster kafka) throws Exception {
    // Given: keys in the query, as Gemini (key), Azure (api-key) and OAuth (access_token) take them
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);
    String target =
        "/v1/chat/completions?key=SECRET-q1&api-version=2024-06-01&api-key=SECRET-q2"
            + "&access_token=SECRET-q3";

    // When
    http.send(
        chat(at(proxy, target), "{\"model\":\"m\"}").header("X-Request-Id", "q-1").build(),
        HttpResponse.BodyHandlers.ofString());

    // Then: the engine got the target as sent; the stored path keeps the rest, in order
    assertThat(upstream.last().target()).isEqualTo(target);
    ConsumerRecord<String, byte[]> record = reader.await(1, WAIT).get(0);
    assertThat(event(record).path()).isEqualTo("/v1/chat/completions?api-version=2024-06-01");
    assertThat(new String(record.value(), StandardCharsets.ISO_8859_1)).doesNotContain("SECRET");
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.QUERY_CREDENTIALS)).isEqualTo(3);
  }

  @Test
  void probeAnAbsoluteFormTargetIsForwardedAndStoredInOriginForm(KafkaCluster kafka)
      throws Exception {
    // Given: a request whose target names another host, as a client of a forward proxy sends it
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);
    String body = "{\"model\":\"m\"}";

    // When
    String response =
        postOnItsOwnConnection(
            proxy, "http://other.example:8443/v1/chat/completions?n=1", "other.example:8443", body);

    // Then: the engine got the origin form, and the stored path is the same
    assertThat(response).startsWith("HTTP/1.1 200");
    assertThat(upstream.last().target()).isEqualTo("/v1/chat/completions?n=1");
    assertThat(event(reader.await(1, WAIT).get(0)).path()).isEqualTo("/v1/chat/completions?n=1");
  }

  @Test
  void probeARebindingHostOrAnotherSitesOriginIsRefusedByTheBridgesOwnEndpoints(KafkaCluster kafka)
      throws Exception {
    // Given: a page whose DNS name was rebound to 127.0.0.1 (it sends its own name as Host), and a
    // page of another site that posts to the ingest endpoint
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    TopicReader reader = reader(kafka);
    String auth = "Authorization: Bearer " + token + "\r\n";
    String line = rawEvent("door-1", "{\"model\":\"m\"}", null);
    String rebound = "attacker.example:" + proxy.metricsPort();

    // When
    String metrics = sendOnItsOwnConnection(proxy.metricsPort(), "GET /metrics", rebound, "", "");
    String health = sendOnItsOwnConnection(proxy.metricsPort(), "GET /health", rebound, "", "");
    String ingested =
        sendOnItsOwnConnection(
            proxy.port(), "POST " + IngestHandler.PATH, "attacker.example", auth, line);
    String crossSite =
        sendOnItsOwnConnection(
            proxy.port(),
            "POST " + IngestHandler.PATH,
            "127.0.0.1:" + proxy.port(),
            auth + "Origin: http://attacker.example\r\n",
            line);
    String proxied = postOnItsOwnConnection(proxy, "/v1/chat/completions", "gateway.example", "{}");
    String own =
        sendOnItsOwnConnection(
            proxy.metricsPort(), "GET /metrics", "localhost:" + proxy.metricsPort(), "", "");

    // Then: the bridge's own endpoints refuse and count them; the proxied request is the engine's
    assertThat(metrics).startsWith("HTTP/1.1 403").doesNotContain("prefixlog_proxy_");
    assertThat(health).startsWith("HTTP/1.1 403");
    assertThat(ingested).startsWith("HTTP/1.1 403");
    assertThat(crossSite).startsWith("HTTP/1.1 403").contains("another site");
    assertThat(proxied).startsWith("HTTP/1.1 200");
    assertThat(own).startsWith("HTTP/1.1 200").contains("prefixlog_http_refused_total");
    assertThat(Meters.count(proxy.metrics(), "prefixlog_http_refused_total", "service", "metrics"))
        .isEqualTo(2);
    assertThat(Meters.count(proxy.metrics(), "prefixlog_http_refused_total", "service", "ingest"))
        .isEqualTo(2);
    // Only the proxied request reached the topic
    assertThat(reader.await(1, WAIT))
        .extracting(r -> event(r).path())
        .containsExactly("/v1/chat/completions");
  }

  @Test
  void probeQueryStringKeysInIngestedEventsAreNeverStored(KafkaCluster kafka) throws Exception {
    // Given: a middleware's event whose path holds a key
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    TopicReader reader = reader(kafka);
    String line =
        rawEvent("ing-q", "{\"model\":\"m\"}", null)
            .replace("\"/v1/chat/completions\"", "\"/v1/chat/completions?Key=SECRET-q4&n=1\"");

    // When
    HttpResponse<String> response =
        http.send(ingest(proxy, "Bearer " + token, line), HttpResponse.BodyHandlers.ofString());

    // Then: accepted, stored without the key, the body still its own
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    ConsumerRecord<String, byte[]> record = reader.await(1, WAIT).get(0);
    RawRequestEvent stored = event(record);
    assertThat(stored.path()).isEqualTo("/v1/chat/completions?n=1");
    assertThat(stored.body()).isEqualTo("{\"model\":\"m\"}");
    assertThat(new String(record.value(), StandardCharsets.ISO_8859_1)).doesNotContain("SECRET");
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.QUERY_CREDENTIALS)).isEqualTo(1);
  }

  @Test
  void probeTheBodiesOfRequestsTheEngineRefusedAreNeverStored(KafkaCluster kafka) throws Exception {
    // Given: every session sampled, errors kept; a request the engine refuses as unauthenticated
    // (401) and one it refuses as forbidden (403), each with a body that must not be kept; and a
    // middleware's event of a 403 posted to the ingest endpoint
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    TopicReader reader = reader(kafka);
    String refusedBody =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"SECRET-q5\"}]}";
    ObjectNode ingested =
        (ObjectNode) Json.mapper().readTree(rawEvent("ing-403", refusedBody, null));
    ingested.putObject("response").put("status", 403);

    // When
    HttpResponse<String> unauthorized =
        http.send(
            chat(at(proxy, "/status?code=401"), refusedBody)
                .header("X-Request-Id", "r-401")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> forbidden =
        http.send(
            chat(at(proxy, "/status?code=403"), refusedBody)
                .header("X-Request-Id", "r-403")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> accepted =
        http.send(
            ingest(proxy, "Bearer " + token, Json.mapper().writeValueAsString(ingested)),
            HttpResponse.BodyHandlers.ofString());

    // Then: the clients got the engine's answers; each event is metadata only, without the body
    // or its chunk hashes, and says why through its status
    assertThat(unauthorized.statusCode()).isEqualTo(401);
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
    List<ConsumerRecord<String, byte[]>> records = reader.await(3, WAIT);
    for (ConsumerRecord<String, byte[]> record : records) {
      RawRequestEvent event = event(record);
      assertThat(event.body()).isNull();
      assertThat(event.bodyOmitted()).isEqualTo(RawRequestEvent.SAMPLED_OUT);
      assertThat(event.promptChunks()).isNull();
      assertThat(event.bodyLen()).isEqualTo(refusedBody.length());
      assertThat(event.response().status()).isIn(401, 403);
      assertThat(new String(record.value(), StandardCharsets.ISO_8859_1)).doesNotContain("SECRET");
    }
    assertThat(byRequestId(records, "r-401").response().status()).isEqualTo(401);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.SAMPLING, "decision", "refused"))
        .isEqualTo(2);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.INGEST_REFUSED_BODIES)).isEqualTo(1);
  }

  @Test
  void probeASessionIdOfAnotherTenantNeverJoinsItsSession(KafkaCluster kafka) throws Exception {
    // Given: tenants keyed by credential; tenant A sends two turns of session conv-a, tenant B
    // (who learnt or guessed the id) sends a turn under the same id, and a client without any
    // credential sends one too
    CaptureProxy proxy =
        start(config(kafka).with(CaptureConfig.TENANT, new TenantSource(null, true)));
    TopicReader reader = reader(kafka);
    String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    List<HttpRequest> requests =
        List.of(
            tenantTurn(proxy, "Bearer sk-team-a", "a-1", body),
            tenantTurn(proxy, "Bearer sk-team-a", "a-2", body),
            tenantTurn(proxy, "Bearer sk-team-b", "b-1", body),
            HttpRequest.newBuilder(at(proxy, "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .header("X-Session-ID", "conv-a")
                .header("X-Request-Id", "none-1")
                .header(TenantSource.RECORDED_HEADER, "forged")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());

    // When
    for (HttpRequest request : requests) {
      assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(200);
    }

    // Then: A's turns share one session; B's turn and the anonymous one are sessions of their
    // own; no event holds the credentials or the tenants' hashes of them
    List<ConsumerRecord<String, byte[]>> records = reader.await(4, WAIT);
    String a = byRequestId(records, "a-1").sessionKey();
    assertThat(byRequestId(records, "a-2").sessionKey()).isEqualTo(a);
    assertThat(byRequestId(records, "b-1").sessionKey()).isNotEqualTo(a);
    assertThat(byRequestId(records, "none-1").sessionKey())
        .isNotEqualTo(a)
        .isNotEqualTo(byRequestId(records, "b-1").sessionKey());
    for (ConsumerRecord<String, byte[]> record : records) {
      assertThat(new String(record.value(), StandardCharsets.ISO_8859_1))
          .doesNotContain("sk-team")
          .doesNotContain("conv-a");
    }
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.TENANT_MISSING)).isEqualTo(1);
    // and each event records its tenant's id, which a client cannot assert
    String tenantA = byRequestId(records, "a-1").headers().get(TenantSource.RECORDED_HEADER);
    assertThat(tenantA).matches("c-[0-9a-f]{24}");
    assertThat(byRequestId(records, "a-2").headers())
        .containsEntry(TenantSource.RECORDED_HEADER, tenantA);
    assertThat(byRequestId(records, "b-1").headers().get(TenantSource.RECORDED_HEADER))
        .matches("c-[0-9a-f]{24}")
        .isNotEqualTo(tenantA);
    assertThat(byRequestId(records, "none-1").headers())
        .satisfiesAnyOf(
            headers -> assertThat(headers).isNull(),
            headers -> assertThat(headers).doesNotContainKey(TenantSource.RECORDED_HEADER));
  }

  private static HttpRequest tenantTurn(
      CaptureProxy proxy, String authorization, String requestId, String body) {
    return chat(at(proxy, "/v1/chat/completions"), body)
        .setHeader("Authorization", authorization)
        .header("X-Session-ID", "conv-a")
        .header("X-Request-Id", requestId)
        .build();
  }

  @Test
  void probeCredentialFieldsAndConfiguredPatternsInBodiesAreForwardedButNeverStored(
      KafkaCluster kafka) throws Exception {
    // Given: the default field rules, an e-mail pattern; a body with a gateway key, a tool's
    // password and an address, through the proxy and through the ingest endpoint
    String token = "ingest-token-0123456789";
    CaptureProxy proxy =
        start(
            config(kafka)
                .with(IngestConfig.TOKEN, token)
                .with(
                    CaptureConfig.REDACT_PATTERNS,
                    List.of(java.util.regex.Pattern.compile("[\\w.+-]+@[\\w-]+\\.[\\w.]+"))));
    TopicReader reader = reader(kafka);
    String body =
        "{\"model\":\"m\",\"api_key\":\"SECRET-b1\",\"messages\":[{\"role\":\"user\","
            + "\"content\":\"mail SECRET-b2@example.com\"}],\"metadata\":{\"password\":\"SECRET-b3\"}}";
    String stored =
        "{\"model\":\"m\",\"api_key\":\"[REDACTED]\",\"messages\":[{\"role\":\"user\","
            + "\"content\":\"mail [REDACTED]\"}],\"metadata\":{\"password\":\"[REDACTED]\"}}";

    // When
    HttpResponse<String> proxied =
        http.send(
            chat(at(proxy, "/v1/chat/completions"), body).header("X-Request-Id", "red-1").build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> ingested =
        http.send(
            ingest(proxy, "Bearer " + token, rawEvent("red-2", body, null)),
            HttpResponse.BodyHandlers.ofString());

    // Then: the engine got the body as sent; each stored body is the redacted one, with its own
    // length and checksum, and holds none of the secrets
    assertThat(proxied.statusCode()).isEqualTo(200);
    assertThat(ingested.statusCode()).as(ingested.body()).isEqualTo(200);
    assertThat(new String(upstream.last().body(), StandardCharsets.UTF_8)).isEqualTo(body);
    List<ConsumerRecord<String, byte[]>> records = reader.await(2, WAIT);
    for (ConsumerRecord<String, byte[]> record : records) {
      RawRequestEvent event = event(record);
      assertThat(event.body()).isEqualTo(stored);
      assertThat(event.bodyLen()).isEqualTo(stored.length());
      assertThat(event.bodySha256()).isEqualTo(Sha256.hex(stored.getBytes(StandardCharsets.UTF_8)));
      assertThat(new String(record.value(), StandardCharsets.ISO_8859_1)).doesNotContain("SECRET");
    }
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.REDACTIONS, "kind", "field"))
        .isEqualTo(4);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.REDACTIONS, "kind", "pattern"))
        .isEqualTo(2);
  }

  @Test
  void probeSessionHeaderValuesInIngestedEventsAreNeverStored(KafkaCluster kafka) throws Exception {
    // Given: a middleware's event that carries the session header its key was derived from
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    TopicReader reader = reader(kafka);
    String line =
        rawEvent("ing-s", "{}", Map.of("x-session-id", "SECRET-conversation", "x-request-id", "i"));

    // When
    HttpResponse<String> response =
        http.send(ingest(proxy, "Bearer " + token, line), HttpResponse.BodyHandlers.ofString());

    // Then: stored with its key and the other headers, without the session header's value
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    ConsumerRecord<String, byte[]> record = reader.await(1, WAIT).get(0);
    assertThat(event(record).headers()).containsExactlyEntriesOf(Map.of("x-request-id", "i"));
    assertThat(event(record).sessionKey()).isEqualTo("0123456789abcdef0123456789abcdef");
    assertThat(new String(record.value(), StandardCharsets.ISO_8859_1)).doesNotContain("SECRET");
  }

  @Test
  void shouldKeepTheTenantAnIngestingProducerRecords(KafkaCluster kafka) throws Exception {
    // Given: a middleware that derives its keys in its tenants' namespaces and records the tenant
    // as the proxy does
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    TopicReader reader = reader(kafka);
    String line = rawEvent("ing-t", "{}", Map.of(TenantSource.RECORDED_HEADER, "team-a"));

    // When
    HttpResponse<String> response =
        http.send(ingest(proxy, "Bearer " + token, line), HttpResponse.BodyHandlers.ofString());

    // Then: stored with it, for the stream app's metadata and erase --tenant
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    RawRequestEvent stored = event(reader.await(1, WAIT).get(0));
    assertThat(stored.headers()).containsExactlyEntriesOf(Map.of("x-prefixlog-tenant", "team-a"));
    assertThat(stored.tenant()).isEqualTo("team-a");
  }

  @Test
  void shouldKeepNoMoreBodyBytesOfAClientThanItsCaptureBudget(KafkaCluster kafka) throws Exception {
    // Given: 1 byte a second, 2 KiB at once, per client; two clients by their credentials
    CaptureProxy proxy =
        start(
            config(kafka)
                .with(SamplingConfig.CLIENT_RATE, 1L)
                .with(SamplingConfig.CLIENT_BURST, 2048L));
    TopicReader reader = reader(kafka);
    String body = "{\"model\":\"m\",\"prompt\":\"" + "x".repeat(1500) + "\"}";

    // When: the first client sends twice, the second once
    for (String[] request :
        new String[][] {{"k-1", "sk-first"}, {"k-2", "sk-first"}, {"k-3", "sk-second"}}) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(at(proxy, "/v1/chat/completions"))
                  .header("X-Request-Id", request[0])
                  .header("Authorization", "Bearer " + request[1])
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
    }

    // Then: every request proxied and recorded; the first client's second body left out
    List<ConsumerRecord<String, byte[]>> records = reader.await(3, WAIT);
    assertThat(byRequestId(records, "k-1").body()).isEqualTo(body);
    assertThat(byRequestId(records, "k-2").body()).isNull();
    assertThat(byRequestId(records, "k-2").bodyOmitted()).isEqualTo(RawRequestEvent.SAMPLED_OUT);
    assertThat(byRequestId(records, "k-3").body()).isEqualTo(body);
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.SAMPLING, "decision", "client_rate"))
        .isEqualTo(1);
    assertThat(upstream.received()).hasSize(3);
  }

  @Test
  void shouldIngestValidLinesAndReportEveryLinesOutcome(KafkaCluster kafka) throws Exception {
    // Given
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    CaptureProxy disabled = start(config(kafka));
    TopicReader reader = reader(kafka);
    String valid1 = rawEvent("ing-1", "{\"model\":\"m\"}", null);
    String valid2 = rawEvent("ing-2", "{\"model\":\"\u00e9\"}", Map.of("x-request-id", "ing-2"));
    String secret = rawEvent("ing-3", "{}", Map.of("authorization", "Bearer SECRET-ingest"));
    String mismatch =
        valid1
            .replace("\"request_id\":\"ing-1\"", "\"request_id\":\"ing-4\"")
            .replace("\"body_len\":13", "\"body_len\":12");
    String body = valid1 + "\n{not json\n" + secret + "\n\n" + valid2 + "\r\n" + mismatch + "\n";

    // When
    HttpResponse<String> response =
        http.send(ingest(proxy, "Bearer " + token, body), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> noToken =
        http.send(ingest(proxy, null, body), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> wrongToken =
        http.send(
            ingest(proxy, "Bearer wrong-token-0123456789", body),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> off =
        http.send(ingest(disabled, "Bearer " + token, body), HttpResponse.BodyHandlers.ofString());

    // Then
    assertThat(response.statusCode()).isEqualTo(400);
    var json = Json.mapper().readTree(response.body());
    assertThat(json.get("accepted").asInt()).isEqualTo(2);
    assertThat(json.get("rejected").asInt()).isEqualTo(3);
    assertThat(json.get("dropped").asInt()).isZero();
    var lines = json.get("lines");
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0).get("line").asInt()).isEqualTo(1);
    assertThat(lines.get(0).get("outcome").asText()).isEqualTo("accepted");
    assertThat(lines.get(0).get("request_id").asText()).isEqualTo("ing-1");
    assertThat(lines.get(1).get("line").asInt()).isEqualTo(2);
    assertThat(lines.get(1).get("reason").asText()).isEqualTo("invalid_json");
    assertThat(lines.get(2).get("reason").asText()).isEqualTo(IngestHandler.SECRET_HEADER);
    assertThat(lines.get(3).get("line").asInt()).isEqualTo(5);
    assertThat(lines.get(3).get("outcome").asText()).isEqualTo("accepted");
    assertThat(lines.get(4).get("line").asInt()).isEqualTo(6);
    assertThat(lines.get(4).get("reason").asText()).isEqualTo("body_mismatch");
    assertThat(noToken.statusCode()).isEqualTo(401);
    assertThat(wrongToken.statusCode()).isEqualTo(401);
    assertThat(off.statusCode()).isEqualTo(404);
    assertThat(off.body()).contains("PREFIXLOG_INGEST_TOKEN");
    List<ConsumerRecord<String, byte[]>> records = reader.await(2, WAIT);
    records = reader.settle(Duration.ofSeconds(1));
    assertThat(records).hasSize(2);
    assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8)).isEqualTo(valid1);
    assertThat(new String(records.get(1).value(), StandardCharsets.UTF_8)).isEqualTo(valid2);
    assertThat(records.get(0).key()).isEqualTo("0123456789abcdef0123456789abcdef");
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.INGEST_LINES, "outcome", "accepted"))
        .isEqualTo(2);
    assertThat(
            Meters.count(
                proxy.metrics(), ProxyMetrics.INGEST_REJECTIONS, "reason", "secret_header"))
        .isEqualTo(1);
  }

  @Test
  void shouldPublishEachEventWithItsCaptureTimeAsItsRecordTimestamp(KafkaCluster kafka)
      throws Exception {
    // Given: a proxy with the ingest endpoint, and a middleware's events captured an hour ago (a
    // backlog), a day ahead (its clock is wrong) and two days ago (older than the raw topic's
    // retention would keep)
    String token = "ingest-token-0123456789";
    CaptureProxy proxy = start(config(kafka).with(IngestConfig.TOKEN, token));
    TopicReader reader = reader(kafka);
    long now = System.currentTimeMillis();
    long anHourAgo = now - Duration.ofHours(1).toMillis();
    long aDayAhead = now + Duration.ofDays(1).toMillis();
    long twoDaysAgo = now - Duration.ofDays(2).toMillis();
    String lines =
        rawEvent("ts-hour", "{\"model\":\"m\"}", null, anHourAgo)
            + "\n"
            + rawEvent("ts-ahead", "{\"model\":\"m\"}", null, aDayAhead)
            + "\n"
            + rawEvent("ts-old", "{\"model\":\"m\"}", null, twoDaysAgo)
            + "\n";

    // When: a request the engine answers after 300 ms (its event is published after that), then
    // the middleware's lines
    HttpResponse<String> proxied =
        http.send(
            HttpRequest.newBuilder(at(proxy, "/slow?ms=300"))
                .header("X-Request-Id", "ts-proxied")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    long sentFrom = System.currentTimeMillis();
    HttpResponse<String> ingested =
        http.send(ingest(proxy, "Bearer " + token, lines), HttpResponse.BodyHandlers.ofString());
    List<ConsumerRecord<String, byte[]>> records = reader.await(4, WAIT);
    long sentBy = System.currentTimeMillis();

    // Then: captured within the bounds, the record timestamp is the capture time; beyond them it
    // is the bridge's clock when it sent the record, counted, and ts stays as captured
    assertThat(proxied.statusCode()).isEqualTo(200);
    assertThat(ingested.statusCode()).isEqualTo(200);
    Map<String, ConsumerRecord<String, byte[]>> byId = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      byId.put(clientIdOf(event(record)), record);
    }
    assertThat(byId.get("ts-proxied").timestamp()).isEqualTo(event(byId.get("ts-proxied")).ts());
    assertThat(byId.get("ts-hour").timestamp()).isEqualTo(anHourAgo);
    assertThat(byId.get("ts-ahead").timestamp()).isBetween(sentFrom, sentBy);
    assertThat(event(byId.get("ts-ahead")).ts()).isEqualTo(aDayAhead);
    assertThat(byId.get("ts-old").timestamp()).isBetween(sentFrom, sentBy);
    assertThat(event(byId.get("ts-old")).ts()).isEqualTo(twoDaysAgo);
    assertThat(
            Meters.count(
                proxy.metrics(), "prefixlog_proxy_record_time_adjusted_total", "reason", "ahead"))
        .isEqualTo(1);
    assertThat(
            Meters.count(
                proxy.metrics(), "prefixlog_proxy_record_time_adjusted_total", "reason", "old"))
        .isEqualTo(1);
  }

  @Test
  void shouldFinishExchangesInFlightAndPublishTheirEventsOnClose(KafkaCluster kafka)
      throws Exception {
    // Given: a request in flight when the proxy is asked to stop
    CaptureProxy proxy = CaptureProxy.start(config(kafka));
    TopicReader reader = reader(kafka);
    java.util.concurrent.CompletableFuture<HttpResponse<String>> slow =
        http.sendAsync(
            HttpRequest.newBuilder(at(proxy, "/slow?ms=700"))
                .header("X-Request-Id", "req-draining")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    await(() -> proxy.inFlight() == 1);

    // When
    proxy.close();

    // Then: the exchange completed and its event was published before close() returned
    HttpResponse<String> response = slow.get(10, TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("late\n");
    assertThat(Meters.count(proxy.metrics(), ProxyMetrics.PUBLISHED)).isEqualTo(1);
    assertThat(byRequestId(reader.await(1, WAIT), "req-draining").response().status())
        .isEqualTo(200);
  }

  @Test
  void shouldGiveAnHttp10ClientAStreamWholeWithItsLength(KafkaCluster kafka) throws Exception {
    // Given
    CaptureProxy proxy = start(config(kafka));
    TopicReader reader = reader(kafka);
    byte[] body =
        "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"
            .getBytes(StandardCharsets.UTF_8);

    // When: an HTTP/1.0 request (no chunked encoding) for an SSE stream
    String response;
    try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /v1/chat/completions?events=3 HTTP/1.0\r\nX-Request-Id: req-http10\r\n"
                  + "Content-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    // Then
    String events = response.substring(response.indexOf("\r\n\r\n") + 4);
    assertThat(response).startsWith("HTTP/1.0 200 OK\r\n").doesNotContain("chunked");
    assertThat(response.toLowerCase(java.util.Locale.ROOT))
        .contains("content-length: " + events.getBytes(StandardCharsets.UTF_8).length + "\r\n");
    assertThat(events).startsWith("data: {").endsWith("data: [DONE]\n\n");
    RawRequestEvent event = byRequestId(reader.await(1, WAIT), "req-http10");
    assertThat(event.response().usage()).isEqualTo(new Usage(body.length / 4L, 3L, null));
  }

  /**
   * A JSON POST written by hand on a connection of its own ({@code Connection: close}), for a
   * target the JDK's client would not send as is; the whole response as text.
   */
  private static String postOnItsOwnConnection(
      CaptureProxy proxy, String target, String host, String body) throws IOException {
    return sendOnItsOwnConnection(proxy.port(), "POST " + target, host, "", body);
  }

  /**
   * A request written by hand as a browser writes it, with the Host it chooses and {@code headers}
   * (each line ending in CRLF); the whole response as text.
   */
  private static String sendOnItsOwnConnection(
      int port, String requestLine, String host, String headers, String body) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      String request =
          requestLine
              + " HTTP/1.1\r\nHost: "
              + host
              + "\r\nConnection: close\r\n"
              + headers
              + "Content-Type: application/json\r\nContent-Length: "
              + body.getBytes(StandardCharsets.UTF_8).length
              + "\r\n\r\n"
              + body;
      socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static HttpRequest ingest(CaptureProxy proxy, String authorization, String body) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(at(proxy, IngestHandler.PATH))
            .header("Content-Type", "application/x-ndjson")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (authorization != null) {
      builder.header("Authorization", authorization);
    }
    return builder.build();
  }

  private static String rawEvent(String requestId, String body, Map<String, String> headers)
      throws IOException {
    return rawEvent(requestId, body, headers, 1_700_000_000_000L);
  }

  private static String rawEvent(
      String requestId, String body, Map<String, String> headers, long ts) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    RawRequestEvent event =
        new RawRequestEvent(
            1,
            requestId,
            ts,
            "0123456789abcdef0123456789abcdef",
            "fallback",
            "10.0.0.1",
            "middleware/1",
            headers,
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
            null);
    return Json.mapper().writeValueAsString(event);
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  static void await(BooleanSupplier condition) {
    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .until(condition::getAsBoolean);
  }
}
