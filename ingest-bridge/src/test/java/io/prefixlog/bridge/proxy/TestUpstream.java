package io.prefixlog.bridge.proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenAI-style upstream for the proxy tests (and {@link ProxyOverheadProbe}), on the JDK's own
 * HTTP server (a different HTTP stack from the proxy's). Records every request it receives (method,
 * target, headers, exact body bytes).
 *
 * <ul>
 *   <li>{@code /echo}: 200, the request body back as {@code application/octet-stream}
 *   <li>{@code /v1/chat/completions}: a chat completion; with {@code "stream":true} an SSE stream
 *       of {@code events} chunks (query, default 5), and a final usage chunk when the body asks for
 *       {@code "include_usage":true}; the id is {@code chatcmpl-<X-Request-Id>}; usage
 *       prompt_tokens = body bytes / 4, cached = the {@code x-test-cached} header (or absent);
 *       {@code delayMs} (query) waits that long first
 *   <li>{@code /gated}: an SSE stream that sends one event and then waits for {@link #release()}
 *   <li>{@code /forever}: an SSE event every 20 ms until the client goes away
 *   <li>{@code /firehose}: SSE events of 16 KB written as fast as the proxy takes them, 64 MiB in
 *       all, or until the proxy goes away ({@link #firehoseAborted})
 *   <li>{@code /slow?ms=N}: answers after N ms
 *   <li>{@code /lazy?ms=N}: reads the request body only after N ms, then answers its length
 *   <li>{@code /status?code=N}: that status with a small text body
 * </ul>
 */
final class TestUpstream implements AutoCloseable {
  record Received(String method, String target, Map<String, List<String>> headers, byte[] body) {
    String header(String name) {
      List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
      return values == null ? null : String.join(", ", values);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<Received> received = new ArrayList<>();
  private volatile CountDownLatch gate = new CountDownLatch(1);
  final AtomicInteger foreverAborted = new AtomicInteger();
  final AtomicInteger firehoseAborted = new AtomicInteger();

  /** Client ports seen: how many connections requests came over. */
  final java.util.Set<Integer> clientPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();

  TestUpstream() throws IOException {
    // The JDK server writes head and body separately; with Nagle on, every response waits for a
    // delayed ACK (40 ms), the pitfall of performance-anchors §(a). Read when the server starts.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  synchronized List<Received> received() {
    return List.copyOf(received);
  }

  synchronized Received last() {
    return received.get(received.size() - 1);
  }

  void release() {
    gate.countDown();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (exchange.getRequestURI().getPath().equals("/lazy")) {
        // An engine busy elsewhere: the body waits in the sockets and then in the proxy.
        sleep(Long.parseLong(query(exchange.getRequestURI().getRawQuery()).get("ms")));
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      clientPorts.add(exchange.getRemoteAddress().getPort());
      Map<String, List<String>> headers = new TreeMap<>();
      exchange
          .getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), List.copyOf(v)));
      synchronized (this) {
        received.add(
            new Received(
                exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers, body));
      }
      String path = exchange.getRequestURI().getPath();
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      switch (path) {
        case "/echo" -> {
          exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
          exchange.getResponseHeaders().set("X-Upstream", "test");
          send(exchange, 200, body);
        }
        case "/v1/chat/completions" -> chat(exchange, body, query);
        case "/gated" -> gated(exchange);
        case "/forever" -> forever(exchange);
        case "/firehose" -> firehose(exchange);
        case "/lazy" ->
            send(exchange, 200, Integer.toString(body.length).getBytes(StandardCharsets.UTF_8));
        case "/slow" -> {
          Thread.sleep(Long.parseLong(query.getOrDefault("ms", "1000")));
          send(exchange, 200, "late\n".getBytes(StandardCharsets.UTF_8));
        }
        case "/status" -> {
          int code = Integer.parseInt(query.getOrDefault("code", "500"));
          exchange.getResponseHeaders().set("Content-Type", "text/plain");
          send(exchange, code, ("error " + code + "\n").getBytes(StandardCharsets.UTF_8));
        }
        default -> send(exchange, 404, "no such test path\n".getBytes(StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void chat(HttpExchange exchange, byte[] body, Map<String, String> query)
      throws IOException, InterruptedException {
    String text = new String(body, StandardCharsets.UTF_8);
    long delay = Long.parseLong(query.getOrDefault("delayMs", "0"));
    if (delay > 0) {
      Thread.sleep(delay);
    }
    String requestId = exchange.getRequestHeaders().getFirst("X-Request-Id");
    String id = "chatcmpl-" + requestId;
    long prompt = body.length / 4;
    String cached = exchange.getRequestHeaders().getFirst("x-test-cached");
    String usage =
        "{\"prompt_tokens\":"
            + prompt
            + ",\"total_tokens\":"
            + (prompt + 3)
            + ",\"completion_tokens\":3"
            + (cached == null
                ? ""
                : ",\"prompt_tokens_details\":{\"cached_tokens\":" + cached + "}")
            + "}";
    if (!text.contains("\"stream\":true")) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      String json =
          "{\"id\":\""
              + id
              + "\",\"object\":\"chat.completion\",\"model\":\"m\",\"choices\":[{\"index\":0,"
              + "\"message\":{\"role\":\"assistant\",\"content\":\"hi \\\"usage\\\" there\"},"
              + "\"finish_reason\":\"stop\"}],\"usage\":"
              + usage
              + "}";
      send(exchange, 200, json.getBytes(StandardCharsets.UTF_8));
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    int events = Integer.parseInt(query.getOrDefault("events", "5"));
    for (int i = 0; i < events; i++) {
      String chunk =
          "data: {\"id\":\""
              + id
              + "\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
              + "{\"content\":\"tok"
              + i
              + "\"}}],\"usage\":null}\n\n";
      out.write(chunk.getBytes(StandardCharsets.UTF_8));
      out.flush();
      Thread.sleep(5);
    }
    if (text.contains("\"include_usage\":true")) {
      out.write(
          ("data: {\"id\":\""
                  + id
                  + "\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
                  + "\"usage\":"
                  + usage
                  + "}\n\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    out.close();
  }

  private void gated(HttpExchange exchange) throws IOException, InterruptedException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    out.write("data: {\"id\":\"first\"}\n\n".getBytes(StandardCharsets.UTF_8));
    out.flush();
    boolean released = gate.await(20, TimeUnit.SECONDS);
    out.write(
        ("data: {\"id\":\"x\",\"released\":" + released + "}\n\ndata: [DONE]\n\n")
            .getBytes(StandardCharsets.UTF_8));
    out.close();
    gate = new CountDownLatch(1);
  }

  private void forever(HttpExchange exchange) throws IOException, InterruptedException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    try {
      for (int i = 0; i < 1500; i++) {
        out.write(("data: {\"n\":" + i + "}\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        Thread.sleep(20);
      }
      out.close();
    } catch (IOException e) {
      foreverAborted.incrementAndGet();
    }
  }

  private void firehose(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    byte[] event = ("data: " + "x".repeat(16_000) + "\n\n").getBytes(StandardCharsets.UTF_8);
    OutputStream out = exchange.getResponseBody();
    try {
      for (long sent = 0; sent < 64L << 20; sent += event.length) {
        out.write(event);
      }
      out.close();
    } catch (IOException e) {
      firehoseAborted.incrementAndGet();
    }
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static void send(HttpExchange exchange, int code, byte[] body) throws IOException {
    exchange.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> result = new TreeMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          result.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    return result;
  }

  @Override
  public void close() {
    gate.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
