package io.prefixlog.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.chunk.ChunkHasher;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.schemas.json.Json;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small OpenAI-compatible engine for demos, tests and benchmarks: {@code POST
 * /v1/chat/completions} and {@code /v1/completions} (JSON, or an SSE stream with {@code "stream":
 * true}), {@code GET /v1/models} and {@code GET /health}. It answers after a configured delay with
 * a fixed text of a configured size.
 *
 * <p>Usage is computed honestly from what this process has seen, with one stated approximation:
 * there is no tokenizer, so a token is 4 bytes of the rendered prompt ({@link PromptRenderer}). The
 * prefix cache holds {@value #CHUNK_BYTES}-byte chunk hashes ({@link ChunkHasher}, prefix chained)
 * in an LRU of a configured size; {@code cached_tokens} = leading chunks found × {@value
 * #CHUNK_BYTES} / 4, as vLLM counts whole cached blocks of the prompt's prefix. A second request
 * that extends a conversation therefore reports most of its prompt as cached, a new one none.
 *
 * <p>The response id follows vLLM: {@code chatcmpl-<id>} / {@code cmpl-<id>}, where id is the
 * {@code X-Request-Id} header, else the body's {@code request_id}, else random, so a proxy that
 * sets {@code X-Request-Id} can match the engine's id to its capture.
 *
 * <p>Built on Vert.x, the capture proxy's HTTP library: one event loop, non-blocking, the delay is
 * a timer, so any number of requests wait at once and the engine stays far from being the
 * bottleneck of the proxy benchmark (~200 requests/s); the prompt hashing (~50 µs for 20 KB) runs
 * on the event loop.
 */
public final class DemoUpstream implements AutoCloseable {
  /** Bytes per prefix-cache chunk: 64 tokens of 4 bytes, a typical KV block multiple. */
  public static final int CHUNK_BYTES = 256;

  static final int BYTES_PER_TOKEN = 4;
  static final int STREAM_PIECES = 8;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Logger LOGGER = LoggerFactory.getLogger(DemoUpstream.class);
  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Options options;
  private final Vertx vertx;
  private HttpServer server;
  private final PrefixCache cache;
  private final ChunkHasher hasher = new ChunkHasher(CHUNK_BYTES);
  private final String answer;
  private final Consumer<Served> listener;
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();

  private DemoUpstream(Options options, Consumer<Served> listener) throws IOException {
    this.options = options;
    this.listener = listener;
    this.cache = new PrefixCache(options.cacheChunks());
    this.answer = answerText(options.responseBytes());
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
  }

  private void listen() throws IOException {
    try {
      server =
          vertx
              .createHttpServer(
                  new HttpServerOptions()
                      .setHost(options.host())
                      .setPort(options.port())
                      .setTcpNoDelay(true))
              .requestHandler(this::handle)
              .listen()
              .toCompletionStage()
              .toCompletableFuture()
              .get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      close();
      throw new IOException(
          "the demo upstream cannot listen on " + options.host() + ":" + options.port(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new IOException("interrupted while starting the demo upstream", e);
    }
  }

  /** Starts a server; {@code close()} stops it. */
  public static DemoUpstream start(Options options) throws IOException {
    return start(options, served -> {});
  }

  /**
   * Starts a server that reports every completion request it answers to {@code listener} (on the
   * handler thread, before the response is written: a client that has its answer finds it
   * reported).
   */
  public static DemoUpstream start(Options options, Consumer<Served> listener) throws IOException {
    DemoUpstream upstream =
        new DemoUpstream(
            Objects.requireNonNull(options, "options"),
            Objects.requireNonNull(listener, "listener"));
    upstream.listen();
    LOGGER.info("demo upstream listening port={}", upstream.port());
    return upstream;
  }

  /** The port it listens on. */
  public int port() {
    return server.actualPort();
  }

  /** {@code http://host:port}, the base URL of the API. */
  public String baseUrl() {
    return "http://" + options.host() + ":" + port();
  }

  /** Completion requests answered. */
  public long served() {
    return served.get();
  }

  /** Requests answered with a 4xx (bad JSON, unknown path or method). */
  public long rejected() {
    return rejected.get();
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOGGER.warn("the demo upstream did not stop cleanly", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void handle(HttpServerRequest request) {
    request
        .body()
        .onFailure(e -> LOGGER.debug("demo upstream: request body not read", e))
        .onSuccess(body -> route(request, body.getBytes()));
  }

  private void route(HttpServerRequest request, byte[] body) {
    String path = request.path();
    String method = request.method().name();
    HttpServerResponse response = request.response();
    switch (path) {
      case "/v1/chat/completions":
      case "/v1/completions":
        if (!"POST".equals(method)) {
          error(response, 405, "method " + method + " not allowed on " + path);
        } else {
          complete(request, path, body);
        }
        break;
      case "/v1/models":
        send(response, 200, "application/json", models());
        break;
      case "/health":
        send(response, 200, "text/plain", new byte[0]);
        break;
      default:
        error(response, 404, "no such path: " + path);
    }
  }

  private void complete(HttpServerRequest http, String path, byte[] body) {
    HttpServerResponse reply = http.response();
    JsonNode request;
    try {
      request = Json.mapper().readTree(body);
    } catch (IOException e) {
      error(reply, 400, "the body is not JSON");
      return;
    }
    if (request == null || !request.isObject()) {
      error(reply, 400, "the body is not a JSON object");
      return;
    }
    boolean chat = path.equals("/v1/chat/completions");
    if (chat ? !request.path("messages").isArray() : request.path("prompt").isMissingNode()) {
      error(reply, 400, chat ? "messages must be an array" : "prompt is required");
      return;
    }
    String requestId = http.getHeader("X-Request-Id");
    if (requestId == null || requestId.isBlank()) {
      requestId =
          request.path("request_id").isTextual()
              ? request.path("request_id").asText()
              : UUID.randomUUID().toString();
    }
    String responseId = (chat ? "chatcmpl-" : "cmpl-") + requestId;
    String model = request.path("model").asText(options.model());
    boolean stream = request.path("stream").asBoolean(false);
    boolean includeUsage = request.path("stream_options").path("include_usage").asBoolean(false);

    byte[] prompt = PromptRenderer.render(body).bytes();
    long promptTokens = tokens(prompt.length);
    long cachedChunks = cache.lookupAndStore(hasher.hash(prompt));
    long cachedTokens = Math.min(promptTokens, cachedChunks * CHUNK_BYTES / BYTES_PER_TOKEN);
    long completionTokens = tokens(answer.getBytes(StandardCharsets.UTF_8).length);
    ObjectNode usage = Json.mapper().createObjectNode();
    usage.put("prompt_tokens", promptTokens);
    usage.put("total_tokens", promptTokens + completionTokens);
    usage.put("completion_tokens", completionTokens);
    usage.putObject("prompt_tokens_details").put("cached_tokens", cachedTokens);

    served.incrementAndGet();
    listener.accept(
        new Served(
            requestId,
            responseId,
            path,
            stream,
            !stream || includeUsage,
            promptTokens,
            completionTokens,
            cachedTokens));
    Runnable answerIt =
        () -> {
          long created = System.currentTimeMillis() / 1000;
          if (stream) {
            stream(reply, chat, responseId, created, model, includeUsage ? usage : null);
          } else {
            ObjectNode response =
                envelope(responseId, chat ? "chat.completion" : "text_completion");
            response.put("created", created).put("model", model);
            ObjectNode choice = response.putArray("choices").addObject().put("index", 0);
            if (chat) {
              choice.putObject("message").put("role", "assistant").put("content", answer);
            } else {
              choice.put("text", answer);
            }
            choice.put("finish_reason", "stop");
            response.set("usage", usage);
            send(reply, 200, "application/json", Json.treeBytes(response));
          }
        };
    long delayMs = options.delay().toMillis();
    if (delayMs > 0) {
      vertx.setTimer(delayMs, id -> answerIt.run());
    } else {
      answerIt.run();
    }
  }

  private void stream(
      HttpServerResponse out,
      boolean chat,
      String responseId,
      long created,
      String model,
      ObjectNode usage) {
    out.putHeader("Content-Type", "text/event-stream; charset=utf-8");
    out.putHeader("Cache-Control", "no-cache");
    out.setChunked(true);
    String object = chat ? "chat.completion.chunk" : "text_completion";
    if (chat) {
      ObjectNode first = chunk(responseId, object, created, model);
      first
          .putArray("choices")
          .addObject()
          .put("index", 0)
          .putObject("delta")
          .put("role", "assistant")
          .put("content", "");
      event(out, first);
    }
    int step = Math.max(1, (answer.length() + STREAM_PIECES - 1) / STREAM_PIECES);
    for (int from = 0; from < answer.length(); from += step) {
      int to = Math.min(answer.length(), from + step);
      ObjectNode piece = chunk(responseId, object, created, model);
      ObjectNode choice = piece.putArray("choices").addObject().put("index", 0);
      if (chat) {
        choice.putObject("delta").put("content", answer.substring(from, to));
      } else {
        choice.put("text", answer.substring(from, to));
      }
      if (to == answer.length()) {
        choice.put("finish_reason", "stop");
      } else {
        choice.putNull("finish_reason");
      }
      event(out, piece);
    }
    if (usage != null) {
      ObjectNode last = chunk(responseId, object, created, model);
      last.putArray("choices");
      last.set("usage", usage);
      event(out, last);
    }
    out.end(Buffer.buffer(DONE));
  }

  private static ObjectNode chunk(String id, String object, long created, String model) {
    return envelope(id, object).put("created", created).put("model", model);
  }

  private static ObjectNode envelope(String id, String object) {
    return Json.mapper().createObjectNode().put("id", id).put("object", object);
  }

  private static void event(HttpServerResponse out, ObjectNode chunk) {
    out.write(
        Buffer.buffer()
            .appendString("data: ")
            .appendBytes(Json.treeBytes(chunk))
            .appendString("\n\n"));
  }

  private byte[] models() {
    ObjectNode list = Json.mapper().createObjectNode().put("object", "list");
    ArrayNode data = list.putArray("data");
    data.addObject()
        .put("id", options.model())
        .put("object", "model")
        .put("created", 0)
        .put("owned_by", "prefixlog");
    return Json.treeBytes(list);
  }

  private void error(HttpServerResponse exchange, int status, String message) {
    rejected.incrementAndGet();
    ObjectNode error = Json.mapper().createObjectNode();
    error
        .putObject("error")
        .put("message", message)
        .put("type", status == 404 ? "NotFoundError" : "BadRequestError")
        .put("code", status);
    send(exchange, status, "application/json", Json.treeBytes(error));
  }

  private static void send(HttpServerResponse response, int status, String type, byte[] body) {
    response.setStatusCode(status).putHeader("Content-Type", type).end(Buffer.buffer(body));
  }

  private static long tokens(long bytes) {
    return (bytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN;
  }

  static String answerText(int bytes) {
    String words =
        "This is the prefixlog demo engine answering. It computes usage from the prompt it"
            + " was sent and counts the prefix it has seen before as cached. ";
    StringBuilder text = new StringBuilder(bytes);
    while (text.length() < bytes) {
      text.append(words, 0, Math.min(words.length(), bytes - text.length()));
    }
    return text.toString();
  }

  /**
   * How the demo engine runs.
   *
   * @param host the address to bind, e.g. {@code 127.0.0.1}
   * @param port the port (0: any free port)
   * @param delay how long it "thinks" before answering (0: at once)
   * @param responseBytes the size of the answer text
   * @param cacheChunks the prefix cache's capacity in {@value #CHUNK_BYTES}-byte chunks
   * @param model the model it lists and names when a request names none
   */
  public record Options(
      String host, int port, Duration delay, int responseBytes, int cacheChunks, String model) {
    public Options {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(delay, "delay");
      Objects.requireNonNull(model, "model");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0..65535, got " + port);
      }
      if (delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative, got " + delay);
      }
      if (responseBytes < 1) {
        throw new IllegalArgumentException("responseBytes must be >= 1, got " + responseBytes);
      }
      if (cacheChunks < 1) {
        throw new IllegalArgumentException("cacheChunks must be >= 1, got " + cacheChunks);
      }
    }

    /**
     * Loopback, any free port, no delay, a 512-byte answer, 262,144 cached chunks (64 MiB of
     * rendered prompt), model {@code prefixlog-demo}.
     */
    public static Options defaults() {
      return new Options("127.0.0.1", 0, Duration.ZERO, 512, 262_144, "prefixlog-demo");
    }

    public Options withHost(String host) {
      return new Options(host, port, delay, responseBytes, cacheChunks, model);
    }

    public Options withPort(int port) {
      return new Options(host, port, delay, responseBytes, cacheChunks, model);
    }

    public Options withDelay(Duration delay) {
      return new Options(host, port, delay, responseBytes, cacheChunks, model);
    }

    public Options withResponseBytes(int responseBytes) {
      return new Options(host, port, delay, responseBytes, cacheChunks, model);
    }

    public Options withCacheChunks(int cacheChunks) {
      return new Options(host, port, delay, responseBytes, cacheChunks, model);
    }
  }
}
