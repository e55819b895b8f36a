package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that stop reading a streamed answer while the engine streams on. The proxy pauses the
 * engine's stream when a client falls behind, but what it had already read of it stays queued until
 * the client reads again, and each queued chunk keeps the read buffer it was cut from. With the
 * JVM's adaptive read sizes those buffers grew to tens of KiB, so each stalled client held ~0.6 MiB
 * of direct memory: 1,000 of them 597 MiB, which with the image's 1.5 GiB heap is more than its 2
 * GiB container (the kernel kills the bridge, and every exchange in flight with it). Bounding the
 * reads from the engine ({@code PREFIXLOG_PROXY_UPSTREAM_RECEIVE_BUFFER}) bounds what a stalled
 * client holds. Direct memory is the JVM's own count ({@code
 * jvm_buffer_memory_used_bytes{id="direct"}}: Netty's buffers are the JDK's direct buffers here).
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SlowClientsIT {
  private static final int CLIENTS = 300;
  private static final int EVENT_BYTES = 200;

  /**
   * Direct memory the bridge may hold with the stalled clients: ~56 KiB each with reads of 16 KiB
   * and its own few MiB (~21 MiB measured); with the JVM's adaptive reads ~0.6 MiB each.
   */
  private static final long BOUND_MIB = 40;

  @TempDir Path dir;

  @Test
  void shouldHoldLittleDirectMemoryForClientsThatStopReadingAStream(KafkaCluster kafka)
      throws Exception {
    // Given: an engine that streams 200-byte events as fast as it may, and the bridge
    TopicReader.createTopic(kafka.bootstrapServers(), "slow.requests.raw");
    List<Socket> clients = new ArrayList<>();
    try (FastStream engine = new FastStream();
        BridgeChild bridge =
            BridgeChild.start(
                dir,
                kafka,
                "http://127.0.0.1:" + engine.port(),
                "slow.",
                256,
                Map.of("PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT", "5m"))) {
      bridge.awaitHealthy();

      // When: 300 clients each ask for a stream, read its head, and then read nothing
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(stalledClient(bridge.port(), i));
      }
      bridge.awaitMetrics(
          m -> BridgeChild.value(m, "prefixlog_proxy_in_flight") >= CLIENTS,
          "every stalled exchange in flight");
      // (the engine fills what the proxy lets it, and the proxy what the clients' sockets take)
      Thread.sleep(3000);
      String metrics = bridge.metrics();

      // Then: the bridge holds a bound of direct memory for them, whatever the engine sends
      double direct =
          BridgeChild.value(metrics, "jvm_buffer_memory_used_bytes{id=\"direct\"}") / (1 << 20);
      System.out.printf(
          "SlowClientsIT: %d clients stalled on a stream of %d-byte events: %.1f MiB of direct"
              + " memory (bound %d MiB)%n",
          CLIENTS, EVENT_BYTES, direct, BOUND_MIB);
      assertThat(direct).isLessThan(BOUND_MIB);
      bridge.assertAlive();

      // and once they went, others are served
      for (Socket client : clients) {
        client.close();
      }
      int status =
          BridgeChild.send(
                  HttpRequest.newBuilder(bridge.uri("/v1/chat/completions"))
                      .header("Content-Type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                      .build(),
                  Duration.ofSeconds(30))
              .statusCode();
      assertThat(status).isEqualTo(200);
    } finally {
      for (Socket client : clients) {
        client.close();
      }
    }
  }

  /** A client that sent a stream request and read the answer's head, and reads no more. */
  private static Socket stalledClient(int port, int i) throws IOException {
    Socket socket = new Socket();
    // A small window, so that what the client does not read stays in the proxy, not in its kernel.
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    byte[] body =
        ("{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"slow "
                + i
                + "\"}]}")
            .getBytes(StandardCharsets.UTF_8);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                + "\r\nX-Session-ID: slow-"
                + i
                + "\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    byte[] head = new byte[12];
    int read = 0;
    InputStream in = socket.getInputStream();
    while (read < head.length) {
      int n = in.read(head, read, head.length - read);
      if (n < 0) {
        throw new IOException("the proxy closed stalled client " + i);
      }
      read += n;
    }
    assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
    return socket;
  }

  /**
   * An engine that answers every request with an SSE stream of {@value #EVENT_BYTES}-byte events,
   * written as fast as the connection takes them (blocking when the proxy stops reading), until 64
   * MiB or the connection goes: one thread per connection, on plain sockets.
   */
  private static final class FastStream implements AutoCloseable {
    private final ServerSocket server;
    private final Thread acceptor;

    FastStream() throws IOException {
      server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
      acceptor = new Thread(this::accept, "fast-stream-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          Thread serve = new Thread(() -> serve(socket), "fast-stream");
          serve.setDaemon(true);
          serve.start();
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    private static void serve(Socket socket) {
      try (socket) {
        InputStream in = socket.getInputStream();
        while (true) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          int length = 0;
          for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
          }
          in.readNBytes(length);
          OutputStream out = new java.io.BufferedOutputStream(socket.getOutputStream(), 8192);
          out.write(
              ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                      + "Transfer-Encoding: chunked\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          byte[] event = new byte[EVENT_BYTES];
          Arrays.fill(event, (byte) 'x');
          System.arraycopy("data: ".getBytes(StandardCharsets.US_ASCII), 0, event, 0, 6);
          event[EVENT_BYTES - 2] = '\n';
          event[EVENT_BYTES - 1] = '\n';
          byte[] chunk =
              (Integer.toHexString(EVENT_BYTES) + "\r\n").getBytes(StandardCharsets.US_ASCII);
          for (long sent = 0; sent < (64L << 20); sent += EVENT_BYTES) {
            out.write(chunk);
            out.write(event);
            out.write('\r');
            out.write('\n');
          }
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
      } catch (IOException e) {
        // the proxy went away
      }
    }

    /** The request head up to its blank line, or null at the end of the connection. */
    private static String readHead(InputStream in) throws IOException {
      StringBuilder head = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0) {
        head.append((char) c);
        if (head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4) {
          return head.toString();
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
