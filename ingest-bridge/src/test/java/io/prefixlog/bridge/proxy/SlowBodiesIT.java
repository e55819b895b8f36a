package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Clients that send slowly, on a real proxy in front of {@link TestUpstream}: uploaders that
 * trickle a large body (each byte in time for the idle timeout) must neither take the engine's
 * connections from real requests nor stay for ever, and a streamed response collected whole for an
 * HTTP/1.0 client must stay inside the capture-memory bound.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SlowBodiesIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private static final int UPLOADERS = 1_100;

  private static final AtomicInteger TOPICS = new AtomicInteger();

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
  void shouldServeARealRequestWhileSlowUploadersAreConnectedAndThenCloseThem(KafkaCluster kafka)
      throws Exception {
    // Given: 16 engine connections, and a body rate checked over 8 s windows
    CaptureProxy proxy =
        start(
            config(kafka)
                .withClientLimits(4096, Duration.ofSeconds(30), Duration.ofSeconds(30))
                .with(UpstreamConfig.MAX_CONNECTIONS, 16)
                .with(ClientLimitsConfig.MIN_BODY_RATE, 1024L)
                .with(ClientLimitsConfig.BODY_RATE_WINDOW, Duration.ofSeconds(8))
                .with(ClientLimitsConfig.BODY_DEADLINE, Duration.ofMinutes(5)));
    List<SocketChannel> uploaders = new ArrayList<>();
    long start = System.nanoTime();
    try {
      // When: 1,100 clients each announce 1 MiB and send a byte every 400 ms (2.5 B/s)
      for (int i = 0; i < UPLOADERS; i++) {
        SocketChannel channel =
            SocketChannel.open(new InetSocketAddress("127.0.0.1", proxy.port()));
        channel.configureBlocking(false);
        writeAll(
            channel,
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 1048576\r\n\r\nx");
        uploaders.add(channel);
      }
      awaitGauge(proxy, "prefixlog_proxy_in_flight", UPLOADERS);
      long connected = System.nanoTime();
      System.out.println(
          "uploaders all in flight after "
              + Duration.ofNanos(connected - start).toMillis()
              + " ms");

      // and a real request comes while they trickle
      long sent = System.nanoTime();
      CompletableFuture<HttpResponse<String>> real =
          HTTP.sendAsync(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/echo"))
                  .timeout(Duration.ofSeconds(5))
                  .header("Content-Type", "text/plain")
                  .POST(HttpRequest.BodyPublishers.ofString("a real request"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      while (!real.isDone()) {
        trickle(uploaders);
        Thread.sleep(100);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - sent);

      // Then: it is served promptly, the uploaders all still connected
      assertThat(real.get().statusCode()).isEqualTo(200);
      assertThat(real.get().body()).isEqualTo("a real request");
      System.out.println("real request answered in " + took.toMillis() + " ms");
      assertThat(took).isLessThan(Duration.ofSeconds(3));
      assertThat(Meters.gaugeValue(proxy.metrics(), "prefixlog_proxy_client_connections"))
          .isGreaterThanOrEqualTo(UPLOADERS);

      // and, below the minimum rate, every uploader is answered 408 and closed, counted
      long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      while (System.nanoTime() < deadline && bodyRateTimeouts(proxy) < UPLOADERS) {
        trickle(uploaders);
        Thread.sleep(400);
      }
      System.out.println(
          "uploaders all closed "
              + Duration.ofNanos(System.nanoTime() - connected).toMillis()
              + " ms after they were all in flight");
      assertThat(bodyRateTimeouts(proxy)).isEqualTo(UPLOADERS);
      awaitGauge(proxy, "prefixlog_proxy_in_flight", 0);
      int answered408 = 0;
      for (SocketChannel channel : uploaders) {
        if (readAll(channel).startsWith("HTTP/1.1 408")) {
          answered408++;
        }
      }
      assertThat(answered408).isEqualTo(UPLOADERS);
    } finally {
      for (SocketChannel channel : uploaders) {
        channel.close();
      }
    }
  }

  @Test
  void shouldCloseAnUploadPastTheBodyDeadlineThoughItKeepsTheRate(KafkaCluster kafka)
      throws Exception {
    // Given: a deadline of 2 s for a body, and a rate of 1 KiB/s over 1 s windows
    CaptureProxy proxy =
        start(
            config(kafka)
                .with(ClientLimitsConfig.MIN_BODY_RATE, 1024L)
                .with(ClientLimitsConfig.BODY_RATE_WINDOW, Duration.ofSeconds(1))
                .with(ClientLimitsConfig.BODY_DEADLINE, Duration.ofSeconds(2)));

    try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
      // When: a client sends 4 KiB/s of a 1 MiB body
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                  + "Content-Length: 1048576\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      long start = System.nanoTime();
      byte[] piece = "x".repeat(400).getBytes(StandardCharsets.ISO_8859_1);
      try {
        for (int i = 0; i < 100; i++) {
          out.write(piece);
          out.flush();
          Thread.sleep(100);
        }
      } catch (IOException closed) {
        // the proxy closed the connection
      }

      // Then: answered 408 after the deadline, not before, counted
      String answer = readHead(socket);
      assertThat(answer).startsWith("HTTP/1.1 408");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThan(Duration.ofMillis(1900));
    }
    assertThat(
            Meters.count(
                proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "body_deadline"))
        .isEqualTo(1);
    assertThat(
            Meters.count(
                proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "body_rate"))
        .isZero();
  }

  @Test
  void shouldNotTimeARealUploadOverASlowLink(KafkaCluster kafka) throws Exception {
    // Given: the default rate and deadline, and a 2 MiB body
    CaptureProxy proxy = start(config(kafka));
    byte[] body = "y".repeat(2 << 20).getBytes(StandardCharsets.ISO_8859_1);

    // When: it is sent as a real client sends it
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/echo"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    // Then
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).hasSize(2 << 20);
  }

  @Test
  void shouldRefuseHttp10StreamsBeyondTheCaptureMemoryBoundAndServeOn(KafkaCluster kafka)
      throws Exception {
    // Given: a capture-memory bound of 1 MiB, and an engine streaming 64 MiB as fast as it is read
    CaptureProxy proxy = start(config(kafka).with(CaptureConfig.MEMORY, 1L << 20));
    AtomicLong highest = new AtomicLong();
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                highest.accumulateAndGet(
                    (long)
                        Meters.gaugeValue(proxy.metrics(), "prefixlog_proxy_capture_memory_bytes"),
                    Math::max);
                try {
                  Thread.sleep(1);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    sampler.setDaemon(true);
    sampler.start();

    // When: four HTTP/1.0 clients ask for the stream at once
    List<Socket> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        Socket socket = new Socket("127.0.0.1", proxy.port());
        clients.add(socket);
        socket
            .getOutputStream()
            .write("GET /firehose HTTP/1.0\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.UTF_8));
      }

      // Then: each is refused with 502 and the reason, counted, while the bound held them
      for (Socket socket : clients) {
        String head = readHead(socket);
        assertThat(head).matches("(?s)HTTP/1\\.[01] 502 .*");
        assertThat(head).containsIgnoringCase("X-Prefixlog-Error: http10_response_too_large");
      }
    } finally {
      for (Socket socket : clients) {
        socket.close();
      }
      sampler.interrupt();
    }
    // Awaited: the 502 leaves on the event loop before the exchange is finished and counted, so
    // a client can read its answer a moment before the counter moves.
    await()
        .alias("http10_response_too_large counted")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () ->
                assertThat(
                        Meters.count(
                            proxy.metrics(),
                            "prefixlog_proxy_errors_total",
                            "kind",
                            "http10_response_too_large"))
                    .isEqualTo(4));
    assertThat(highest.get()).isPositive().isLessThanOrEqualTo(1L << 20);
    awaitGauge(proxy, "prefixlog_proxy_capture_memory_bytes", 0);

    // and a normal request is served
    HttpResponse<String> normal =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/slow?ms=1"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(normal.statusCode()).isEqualTo(200);
  }

  private static double bodyRateTimeouts(CaptureProxy proxy) {
    return Meters.count(
        proxy.metrics(), "prefixlog_proxy_client_timeouts_total", "kind", "body_rate");
  }

  /**
   * A topic of its own for each test, made before the proxy starts: without it, closing the proxy
   * waited half a minute for the producer to find the topic of the exchanges' events.
   */
  private ProxyConfig config(KafkaCluster kafka) throws Exception {
    String prefix = "slowbodies" + TOPICS.incrementAndGet() + ".";
    TopicReader.createTopic(kafka.bootstrapServers(), prefix + "requests.raw");
    return ProxyConfig.defaults(upstream.uri(), kafka.bootstrapServers())
        .withListen("127.0.0.1", 0)
        .with(MetricsConfig.PORT, -1)
        .with(PublishConfig.TOPIC_PREFIX, prefix)
        .with(CaptureConfig.SESSION_SECRET, "slow-bodies-it-secret-012345");
  }

  private CaptureProxy start(ProxyConfig config) throws IOException {
    CaptureProxy proxy = CaptureProxy.start(config);
    closeables.add(proxy);
    return proxy;
  }

  /** One byte to every uploader still open (non-blocking: a full socket skips its turn). */
  private static void trickle(List<SocketChannel> channels) {
    for (SocketChannel channel : channels) {
      if (!channel.isOpen()) {
        continue;
      }
      try {
        channel.write(ByteBuffer.wrap(new byte[] {'x'}));
      } catch (IOException closed) {
        // closed by the proxy: read later
      }
    }
  }

  private static void writeAll(SocketChannel channel, String text) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** What the proxy sent on a channel it has closed (empty when it was reset). */
  private static String readAll(SocketChannel channel) {
    ByteBuffer buffer = ByteBuffer.allocate(4096);
    try {
      while (channel.read(buffer) > 0) {
        // until the end of stream or the buffer is full
      }
    } catch (IOException reset) {
      // what came before the reset is in the buffer
    }
    return new String(buffer.array(), 0, buffer.position(), StandardCharsets.ISO_8859_1);
  }

  private static String readHead(Socket socket) throws IOException {
    socket.setSoTimeout(20_000);
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    int b;
    try {
      while ((b = in.read()) >= 0) {
        head.append((char) b);
        if (head.toString().endsWith("\r\n\r\n")) {
          break;
        }
      }
    } catch (IOException reset) {
      // what came before the reset is the answer
    }
    return head.toString();
  }

  private static void awaitGauge(CaptureProxy proxy, String name, double value) {
    await()
        .alias(name)
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> assertThat(Meters.gaugeValue(proxy.metrics(), name)).isEqualTo(value));
  }
}
