package io.prefixlog.bridge.proxy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's warm-up before its listener opens ({@code PREFIXLOG_PROXY_WARMUP}): for a bounded
 * time, synthetic exchanges run through the real {@link ProxyHandler} and {@link Exchange} on the
 * proxy's own event loops, against a loopback upstream, so that the JIT compiles the request path
 * (connection open and close, header copy, body capture, response scan, event encoding) before the
 * first client rather than in the first minutes of its traffic.
 *
 * <p>Nothing of it escapes: the warm-up's components are built by {@link ProxyComponents} from the
 * proxy's settings, as the proxy's are, but its listeners listen on a loopback port of their own,
 * forward to the loopback upstream only, count into a registry of their own, and hand their
 * captures to a sink that encodes them (the publisher thread's work, so it is compiled too) and
 * drops them: the event queue, the publisher and Kafka never see one.
 *
 * <p>It runs until the JIT is done rather than for a fixed time ({@code
 * PREFIXLOG_PROXY_WARMUP_QUIET}): a fixed 2 s ran only 100-400 exchanges on 2 loaded cores, and
 * ProxyBenchmark --cold-start then measured 8.9 s of compiler CPU in the first minute of traffic,
 * the slow pieces being those where the JIT worked. The JIT's own clock ({@link
 * CompilationMXBean#getTotalCompilationTime()}) tells when it has nothing left to compile for this
 * traffic; {@code PREFIXLOG_PROXY_WARMUP} bounds the whole.
 */
final class WarmUp {
  private static final Logger LOGGER = LoggerFactory.getLogger(WarmUp.class);

  /**
   * The JIT counts as quiet when it compiled for at most this share of the quiet window: a few
   * small late compilations (a rarely taken branch, an OSR) do not hold back the listener.
   */
  static final double QUIET_SHARE = 0.05;

  /**
   * Exchanges the warm-up runs at least before it may stop for quiet: a JIT that waits for
   * invocation counters is quiet before the first exchanges made anything hot.
   */
  static final long MIN_EXCHANGES = 1000;

  /** How often the warm-up looks at the JIT (and at most how late it sees quiet). */
  private static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** How often progress is logged. */
  private static final long LOG_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** Concurrent synthetic clients: enough to keep both event loops of a small machine busy. */
  private static final int CLIENTS = 8;

  /** Every n-th request asks to close its connection, so open and close are compiled too. */
  private static final int CLOSE_EVERY = 8;

  /**
   * What a warm-up did: exchanges captured (and discarded), how long it took, the JIT's compilation
   * time meanwhile (-1: the JVM does not tell) and whether it ended because the JIT was quiet
   * (false: it ran to its maximum).
   */
  record Result(long exchanges, long failures, Duration took, long jitMillis, boolean quiet) {}

  /** What the synthetic clients send and the loopback upstream answers. */
  enum Shape {
    /**
     * The start-up warm-up's: chat bodies of 0.3 to 5 KB (every 16th 24 KB), an upstream that
     * answers at once; many exchanges in a bounded time.
     */
    WARM_UP,
    /**
     * The AOT cache's training ({@link AotTraining}): conversations whose bodies grow from 2 to 25
     * KB, an upstream that answers after 20 ms and streams chunk by chunk ({@link
     * TrainingTraffic}).
     */
    PRODUCTION
  }

  /**
   * The JIT's accumulated compilation time in ms, or -1 when the JVM does not monitor it (then the
   * warm-up runs to its maximum).
   */
  static long compilationMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime()
        : -1;
  }

  /**
   * Decides when the warm-up is done: fed the JIT's accumulated compilation time at each sample, it
   * is quiet once the last {@code quiet} (and at least {@code quiet} since the start) added at most
   * {@link #QUIET_SHARE} of it.
   */
  static final class Quiescence {
    private final long quietNanos;
    private final long allowedMillis;

    /** Samples {time, compile ms}, oldest first; the oldest is the newest one a window old. */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();

    /** {@code quiet} zero: never quiet (a fixed-duration warm-up). */
    Quiescence(Duration quiet) {
      this.quietNanos = quiet.toNanos();
      this.allowedMillis = (long) (quiet.toMillis() * QUIET_SHARE);
    }

    /**
     * Records a sample taken at {@code nanos} with the JIT's accumulated {@code compileMillis};
     * true when the JIT has been quiet over the whole window before it.
     */
    boolean quietAfter(long nanos, long compileMillis) {
      if (quietNanos == 0 || compileMillis < 0) {
        return false;
      }
      samples.addLast(new long[] {nanos, compileMillis});
      while (samples.size() > 1 && nanos - secondTime() >= quietNanos) {
        samples.removeFirst();
      }
      long[] oldest = samples.peekFirst();
      return nanos - oldest[0] >= quietNanos && compileMillis - oldest[1] <= allowedMillis;
    }

    private long secondTime() {
      Iterator<long[]> it = samples.iterator();
      it.next();
      return it.next()[0];
    }
  }

  /**
   * What a run counts as it goes, for its progress lines and its {@link Result}: when it started,
   * the JIT's compilation time then, the exchanges captured and the synthetic requests that failed.
   */
  private record Progress(
      long startedNanos, long jitAtStart, AtomicLong exchanges, AtomicLong failures) {
    void log(long now, long jit) {
      LOGGER
          .atInfo()
          .setMessage("capture proxy warming up")
          .addKeyValue("exchanges", exchanges.get())
          .addKeyValue("jitMillis", jit < 0 ? -1 : jit - jitAtStart)
          .addKeyValue("millis", TimeUnit.NANOSECONDS.toMillis(now - startedNanos))
          .log();
    }

    Result result(boolean quiet) {
      long jitAtEnd = compilationMillis();
      return new Result(
          exchanges.get(),
          failures.get(),
          Duration.ofNanos(System.nanoTime() - startedNanos),
          jitAtStart < 0 ? -1 : jitAtEnd - jitAtStart,
          quiet);
    }
  }

  /**
   * Runs the warm-up on {@code vertx}'s event loops until the JIT has been quiet for {@code
   * PREFIXLOG_PROXY_WARMUP_QUIET} (after {@link #MIN_EXCHANGES}), or for {@code
   * PREFIXLOG_PROXY_WARMUP} at most (with no quiet window: exactly); returns once every warm-up
   * listener, connection and the loopback upstream are closed. {@code shape}: the traffic, the
   * start-up warm-up's or the AOT training's.
   */
  static Result run(Vertx vertx, ProxyConfig config, Shape shape) throws IOException {
    Progress progress =
        new Progress(System.nanoTime(), compilationMillis(), new AtomicLong(), new AtomicLong());
    boolean quiet;
    HttpServer upstream = await(loopbackUpstream(vertx, shape));
    try {
      ProxyComponents components = components(config, upstream.actualPort());
      ProxyComponents.Listeners listeners =
          await(components.listen(vertx, discard(components, progress.exchanges()), null));
      try {
        quiet = drive(vertx, listeners.port(), config.warmUp(), shape, progress);
      } finally {
        await(vertx.undeploy(listeners.deployment()));
      }
    } finally {
      await(upstream.close());
    }
    return progress.result(quiet);
  }

  /**
   * The proxy's own components from its own settings, pointed at the loopback upstream, listening
   * on a loopback port of their own and counting into a registry of their own.
   */
  private static ProxyComponents components(ProxyConfig config, int upstreamPort) {
    ProxyConfig warmConfig =
        config
            .with(UpstreamConfig.ORIGIN, URI.create("http://127.0.0.1:" + upstreamPort))
            .withListen("127.0.0.1", 0);
    return new ProxyComponents(
        warmConfig,
        new ProxyMetrics(
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), config.metrics().histograms()));
  }

  /** The publisher thread's work on a capture (its encoding, its latencies), then dropped. */
  private static Consumer<CapturedExchange> discard(
      ProxyComponents components, AtomicLong exchanges) {
    return captured -> {
      components.events().encode(captured);
      components.metrics().recordLatencies(captured.outcome());
      exchanges.incrementAndGet();
    };
  }

  private static Future<HttpServer> loopbackUpstream(Vertx vertx, Shape shape) {
    return vertx
        .createHttpServer(
            new HttpServerOptions().setHost("127.0.0.1").setPort(0).setTcpNoDelay(true))
        .requestHandler(
            request -> {
              if (shape == Shape.PRODUCTION) {
                request.body().onSuccess(body -> TrainingTraffic.answer(vertx, request, body));
              } else {
                answer(request);
              }
            })
        .listen();
  }

  /**
   * The synthetic clients against the warm-up's listeners at {@code port}, until the JIT is quiet
   * or the maximum is reached; true when it ended quiet.
   */
  private static boolean drive(
      Vertx vertx, int port, WarmUpConfig settings, Shape shape, Progress progress)
      throws IOException {
    HttpClientAgent client =
        vertx.createHttpClient(
            new HttpClientOptions().setTcpNoDelay(true).setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(CLIENTS));
    // Set on every way out, so that no synthetic client sends again on a closed client.
    AtomicBoolean stop = new AtomicBoolean();
    try {
      List<Future<Void>> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        Promise<Void> done = Promise.promise();
        int first = i;
        vertx.runOnContext(v -> send(client, port, first, shape, stop, progress.failures(), done));
        clients.add(done.future());
      }
      boolean quiet = awaitQuiet(settings, progress);
      stop.set(true);
      await(Future.all(clients));
      return quiet;
    } finally {
      stop.set(true);
      await(client.close());
    }
  }

  /** Samples the JIT until it is quiet (true) or the maximum is reached (false). */
  private static boolean awaitQuiet(WarmUpConfig settings, Progress progress) throws IOException {
    long deadline = progress.startedNanos() + settings.duration().toNanos();
    Quiescence quiescence = new Quiescence(settings.quiet());
    long nextLog = progress.startedNanos() + LOG_NANOS;
    for (long now = System.nanoTime(); now < deadline; now = System.nanoTime()) {
      sleep(Math.min(SAMPLE_NANOS, deadline - now));
      now = System.nanoTime();
      long jit = compilationMillis();
      boolean quietNow = quiescence.quietAfter(now, jit);
      if (now >= nextLog) {
        nextLog = now + LOG_NANOS;
        progress.log(now, jit);
      }
      if (quietNow && progress.exchanges().get() >= MIN_EXCHANGES) {
        return true;
      }
    }
    return false;
  }

  private static void sleep(long nanos) throws IOException {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted in the proxy's warm-up", e);
    }
  }

  /** One synthetic client: a request, then the next once it completed, until told to stop. */
  private static void send(
      HttpClientAgent client,
      int port,
      int n,
      Shape shape,
      AtomicBoolean stop,
      AtomicLong failures,
      Promise<Void> done) {
    if (stop.get()) {
      done.complete();
      return;
    }
    boolean stream = n % 3 == 1;
    TrainingTraffic.Request production =
        shape == Shape.PRODUCTION ? TrainingTraffic.request(n, CLIENTS) : null;
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost("127.0.0.1")
            .setPort(port)
            .setURI("/v1/chat/completions")
            .putHeader("Content-Type", "application/json")
            .putHeader(
                "X-Session-ID",
                production != null ? production.session() : "prefixlog-warmup-" + (n % 16));
    if (n % CLOSE_EVERY == CLOSE_EVERY - 1) {
      options.putHeader("Connection", "close");
    }
    Buffer body = production != null ? production.body() : body(n, stream);
    client
        .request(options)
        .compose(request -> request.send(body))
        // A proxy's error answer (a 502 when the loopback upstream failed) counts as a failure:
        // a training run on it would profile the error path.
        .compose(
            response ->
                response
                    .body()
                    .compose(
                        b ->
                            response.statusCode() == 200
                                ? Future.succeededFuture(b)
                                : Future.failedFuture("status " + response.statusCode())))
        .onComplete(
            result -> {
              if (result.failed()) {
                failures.incrementAndGet();
              }
              send(client, port, n + CLIENTS, shape, stop, failures, done);
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
