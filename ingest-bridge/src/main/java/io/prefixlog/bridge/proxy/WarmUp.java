package io.prefixlog.bridge.proxy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The proxy's warm-up before its listener opens ({@code PREFIXLOG_PROXY_WARMUP}): for a bounded
 * time, synthetic exchanges run through the real {@link ProxyHandler} and {@link Exchange} on the
 * proxy's own event loops, against a loopback upstream, so that the JIT compiles the request path
 * (connection open and close, header copy, body capture, response scan, event encoding) before the
 * first client rather than in the first minutes of its traffic.
 *
 * <p>Nothing of it escapes: the warm-up's handlers listen on a loopback port of their own, forward
 * to the loopback upstream only, count into a registry of their own, and hand their captures to a
 * sink that encodes them (the publisher thread's work, so it is compiled too) and drops them: the
 * event queue, the publisher and Kafka never see one.
 */
final class WarmUp {
  /** Concurrent synthetic clients: enough to keep both event loops of a small machine busy. */
  private static final int CLIENTS = 8;

  /** Every n-th request asks to close its connection, so open and close are compiled too. */
  private static final int CLOSE_EVERY = 8;

  /** What a warm-up did: exchanges captured (and discarded), and how long it took. */
  record Result(long exchanges, long failures, Duration took) {}

  private WarmUp() {}

  /**
   * Runs the warm-up for {@code duration} on {@code vertx}'s event loops; returns once every
   * warm-up listener, connection and the loopback upstream are closed.
   */
  static Result run(
      Vertx vertx, ProxyConfig config, EventFactory factory, HeaderPolicy policy, Duration duration)
      throws IOException {
    long started = System.nanoTime();
    HttpServer upstream =
        await(
            vertx
                .createHttpServer(
                    new HttpServerOptions().setHost("127.0.0.1").setPort(0).setTcpNoDelay(true))
                .requestHandler(WarmUp::answer)
                .listen());
    AtomicLong exchanges = new AtomicLong();
    ProxyMetrics metrics =
        new ProxyMetrics(
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), config.metricsHistograms());
    Consumer<CapturedExchange> discard =
        captured -> {
          captured.encode();
          captured.recordLatencies(metrics);
          exchanges.incrementAndGet();
        };
    ProxyConfig warmConfig =
        config
            .with(ProxyConfig.UPSTREAM, URI.create("http://127.0.0.1:" + upstream.actualPort()))
            .withListen("127.0.0.1", 0);
    List<ProxyHandler> handlers = new CopyOnWriteArrayList<>();
    String deployment =
        await(
            vertx.deployVerticle(
                () -> {
                  ProxyHandler handler =
                      new ProxyHandler(
                          warmConfig,
                          factory,
                          policy,
                          metrics,
                          discard,
                          null,
                          new AtomicInteger(),
                          new AtomicInteger(),
                          -1);
                  handlers.add(handler);
                  return handler;
                },
                new DeploymentOptions().setInstances(config.eventLoops())));
    HttpClientAgent client =
        vertx.createHttpClient(
            new HttpClientOptions().setTcpNoDelay(true).setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(CLIENTS));
    AtomicLong failures = new AtomicLong();
    try {
      int port = handlers.get(0).actualPort();
      long deadline = started + duration.toNanos();
      List<Future<Void>> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        Promise<Void> done = Promise.promise();
        int first = i;
        vertx.runOnContext(v -> send(client, port, first, deadline, failures, done));
        clients.add(done.future());
      }
      await(Future.all(clients));
    } finally {
      await(client.close());
      await(vertx.undeploy(deployment));
      await(upstream.close());
    }
    return new Result(
        exchanges.get(), failures.get(), Duration.ofNanos(System.nanoTime() - started));
  }

  /** One synthetic client: a request, then the next once it completed, until the deadline. */
  private static void send(
      HttpClientAgent client,
      int port,
      int n,
      long deadline,
      AtomicLong failures,
      Promise<Void> done) {
    if (System.nanoTime() >= deadline) {
      done.complete();
      return;
    }
    boolean stream = n % 3 == 1;
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost("127.0.0.1")
            .setPort(port)
            .setURI("/v1/chat/completions")
            .putHeader("Content-Type", "application/json")
            .putHeader("X-Session-ID", "prefixlog-warmup-" + (n % 16));
    if (n % CLOSE_EVERY == CLOSE_EVERY - 1) {
      options.putHeader("Connection", "close");
    }
    client
        .request(options)
        .compose(request -> request.send(body(n, stream)))
        .compose(response -> response.body())
        .onComplete(
            result -> {
              if (result.failed()) {
                failures.incrementAndGet();
              }
              send(client, port, n + CLIENTS, deadline, failures, done);
            });
  }

  private static final String FILL =
      "The proxy forwards every byte of the request and the response and captures the body. ";

  /**
   * A chat body of 0.3 to 5 KB, and every 16th of 24 KB: mostly small, so that the bounded warm-up
   * runs many exchanges (the JIT compiles a method after so many calls, and until then every byte
   * is interpreted), with large ones for the loops over a body's bytes.
   */
  private static Buffer body(int n, boolean stream) {
    StringBuilder text = new StringBuilder();
    int repeats = n % 16 == 0 ? 280 : 4 + (n * 37) % 60;
    for (int i = 0; i < repeats; i++) {
      text.append(FILL);
    }
    String json =
        "{\"model\":\"warmup\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful"
            + " assistant.\"},{\"role\":\"user\",\"content\":\""
            + text
            + "\"}],\"max_tokens\":64"
            + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
            + "}";
    return Buffer.buffer(json.getBytes(StandardCharsets.UTF_8));
  }

  /** The loopback upstream: an OpenAI-shaped completion, or an SSE stream of chunks and usage. */
  private static void answer(HttpServerRequest request) {
    request
        .body()
        .onSuccess(
            body -> {
              String usage =
                  "\"usage\":{\"prompt_tokens\":"
                      + body.length() / 4
                      + ",\"completion_tokens\":16,\"total_tokens\":"
                      + (body.length() / 4 + 16)
                      + "}";
              if (!body.toString(StandardCharsets.UTF_8).contains("\"stream\":true")) {
                request
                    .response()
                    .putHeader("Content-Type", "application/json")
                    .end(
                        "{\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion\",\"choices\":"
                            + "[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\""
                            + FILL.repeat(8)
                            + "\"},\"finish_reason\":\"stop\"}],"
                            + usage
                            + "}");
                return;
              }
              var response =
                  request
                      .response()
                      .setChunked(true)
                      .putHeader("Content-Type", "text/event-stream");
              for (int i = 0; i < 8; i++) {
                response.write(
                    "data: {\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion.chunk\","
                        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token \"}}],"
                        + "\"usage\":null}\n\n");
              }
              response.end(
                  "data: {\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion.chunk\","
                      + "\"choices\":[],"
                      + usage
                      + "}\n\ndata: [DONE]\n\n");
            });
  }

  private static <T> T await(Future<T> future) throws IOException {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IOException("the proxy's warm-up failed: " + e.getCause().getMessage(), e);
    } catch (TimeoutException e) {
      throw new IOException("the proxy's warm-up did not finish in 30 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted in the proxy's warm-up", e);
    }
  }
}
