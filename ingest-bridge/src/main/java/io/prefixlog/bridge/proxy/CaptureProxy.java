package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prefixlog.core.metrics.ServiceMetrics;
import io.prefixlog.schemas.RecordLimits;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture reverse proxy: {@link #start} binds the proxy port (and the metrics port), and
 * returns once both listen; {@link #close} stops accepting, lets the exchanges in flight finish
 * (bounded by {@code PREFIXLOG_PROXY_DRAIN_TIMEOUT}), publishes what is queued and closes the
 * producer.
 *
 * <pre>
 * client ─▶ ProxyHandler/Exchange (event loops) ─▶ upstream engine
 *                  │ capture on completion (never waits)
 *                  ▼
 *             EventQueue (bounded) ─▶ EventPublisher thread ─▶ Kafka &lt;prefix&gt;requests.raw
 *                                          └─▶ SpillStore (when Kafka refuses, if configured)
 * </pre>
 *
 * <p>The parts are built by {@link ProxyComponents}, each from its settings; this class starts them
 * in order and stops them in the reverse.
 */
public final class CaptureProxy implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(CaptureProxy.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final ProxyConfig config;
  private final Vertx vertx;
  private final ServiceMetrics ownMetrics;
  private final ProxyComponents components;
  private final EventPublisher publisher;
  private final ProxyComponents.Listeners listeners;
  private final HttpServer metricsServer;
  private boolean closed;

  private CaptureProxy(
      ProxyConfig config,
      Vertx vertx,
      ServiceMetrics ownMetrics,
      ProxyComponents components,
      EventPublisher publisher,
      ProxyComponents.Listeners listeners,
      HttpServer metricsServer) {
    this.config = config;
    this.vertx = vertx;
    this.ownMetrics = ownMetrics;
    this.components = components;
    this.publisher = publisher;
    this.listeners = listeners;
    this.metricsServer = metricsServer;
  }

  /** Starts the proxy; returns when it listens. */
  public static CaptureProxy start(ProxyConfig config) throws IOException {
    return start(config, null, () -> true);
  }

  /**
   * Starts the proxy, counting into {@code shared} (the bridge process's registry, which the KV
   * subscriber counts into too; null: a registry of its own) and reporting unhealthy when {@code
   * alsoHealthy} says so.
   */
  public static CaptureProxy start(
      ProxyConfig config, PrometheusMeterRegistry shared, BooleanSupplier alsoHealthy)
      throws IOException {
    return start(config, shared, alsoHealthy, warmUp -> {});
  }

  /**
   * {@link #start(ProxyConfig, PrometheusMeterRegistry, BooleanSupplier)}, telling {@code warmedUp}
   * what the warm-up did once it is over, before the listener opens.
   */
  static CaptureProxy start(
      ProxyConfig config,
      PrometheusMeterRegistry shared,
      BooleanSupplier alsoHealthy,
      Consumer<WarmUp.Result> warmedUp)
      throws IOException {
    return start(config, shared, alsoHealthy, warmedUp, WarmUp.Shape.WARM_UP);
  }

  /**
   * {@link #start(ProxyConfig, PrometheusMeterRegistry, BooleanSupplier, Consumer)} with a warm-up
   * of that shape (the AOT cache's training runs {@link WarmUp.Shape#PRODUCTION}). In order: the
   * components and the publisher (its producer created, its thread started), the event loops, the
   * metrics endpoint, the warm-up, the listeners; what was started is stopped again when a later
   * step fails.
   */
  static CaptureProxy start(
      ProxyConfig config,
      PrometheusMeterRegistry shared,
      BooleanSupplier alsoHealthy,
      Consumer<WarmUp.Result> warmedUp,
      WarmUp.Shape shape)
      throws IOException {
    warnOfTheDevelopmentSecret(config);
    ServiceMetrics ownMetrics = shared == null ? ServiceMetrics.create() : null;
    PrometheusMeterRegistry registry = shared == null ? ownMetrics.registry() : shared;
    ProxyComponents components =
        new ProxyComponents(config, new ProxyMetrics(registry, config.metrics().histograms()));
    EventPublisher publisher = components.publisher(registry);
    publisher.start();
    Vertx vertx = ProxyComponents.vertx(config.listen());
    try {
      // /health is up during the warm-up, so that an orchestrator sees the proxy is starting:
      // 503 "warming_up" until the listener is open.
      AtomicBoolean serving = new AtomicBoolean();
      HttpServer metricsServer =
          config.metrics().enabled()
              ? await(
                  MetricsEndpoint.start(
                      vertx, config.metrics(), registry, publisher, alsoHealthy, serving))
              : null;
      warmUp(vertx, config, shape, warmedUp);
      ProxyComponents.Listeners listeners =
          await(components.listen(vertx, publisher::offer, components.ingest(vertx, publisher)));
      serving.set(true);
      CaptureProxy proxy =
          new CaptureProxy(
              config, vertx, ownMetrics, components, publisher, listeners, metricsServer);
      proxy.logListening();
      return proxy;
    } catch (IOException | RuntimeException e) {
      vertx.close();
      publisher.close(Duration.ofSeconds(1));
      if (ownMetrics != null) {
        ownMetrics.close();
      }
      throw e;
    }
  }

  private static void warnOfTheDevelopmentSecret(ProxyConfig config) {
    if (config.capture().usesDevSecret()) {
      LOGGER
          .atWarn()
          .setMessage(
              "PREFIXLOG_SESSION_SECRET is not set: using the development secret; session keys of"
                  + " guessable ids can be recomputed by anyone")
          .log();
    }
  }

  /**
   * The warm-up runs on the same event loops, before the listener opens: the first clients meet
   * compiled code rather than the interpreter and the JIT's compile queue.
   */
  private static void warmUp(
      Vertx vertx, ProxyConfig config, WarmUp.Shape shape, Consumer<WarmUp.Result> warmedUp)
      throws IOException {
    if (!config.warmUp().enabled()) {
      return;
    }
    LOGGER
        .atInfo()
        .setMessage("capture proxy warming up before it listens")
        .addKeyValue("maxMillis", config.warmUp().duration().toMillis())
        .addKeyValue("quietMillis", config.warmUp().quiet().toMillis())
        .log();
    WarmUp.Result warmUp = WarmUp.run(vertx, config, shape);
    LOGGER
        .atInfo()
        .setMessage("capture proxy warmed up")
        .addKeyValue("exchanges", warmUp.exchanges())
        .addKeyValue("failures", warmUp.failures())
        .addKeyValue("millis", warmUp.took().toMillis())
        .addKeyValue("jitMillis", warmUp.jitMillis())
        .addKeyValue("end", warmUp.quiet() ? "jit quiet" : "maximum reached")
        .log();
    // Collect now what start-up and warm-up left, before traffic: otherwise the first young
    // collection under traffic copies every start-up object that survived (ProxyBenchmark
    // --cold-start measured 75-130 ms for it on 2 loaded cores, later ones 2-3 ms).
    System.gc();
    warmedUp.accept(warmUp);
  }

  private void logListening() {
    LOGGER
        .atInfo()
        .setMessage("capture proxy listening")
        .addKeyValue("listen", config.listen().host() + ":" + port())
        .addKeyValue("upstream", config.upstream().origin())
        .addKeyValue("topic", config.publish().topics().requestsRaw().name())
        .addKeyValue("bootstrap", config.publish().bootstrapServers())
        .addKeyValue("metricsPort", metricsPort())
        .addKeyValue("spill", config.spill().dir())
        .addKeyValue("ingest", config.ingest().enabled())
        .addKeyValue("nativeTransport", vertx.isNativeTransportEnabled())
        .addKeyValue("capturePriority", config.publish().capturePriority())
        .addKeyValue("publishInterval", config.publish().interval())
        .addKeyValue("captureMemory", components.captureMemory().limit())
        .log();
  }

  /**
   * The producer: idempotent, {@code acks=all}, at most 5 in flight (order kept per partition),
   * large batches, message size for the capture limit, and short blocking: {@code send()} runs on
   * the publisher thread only, but a broker that is down must be noticed in a second, not a minute.
   * Pass-through settings ({@code PREFIXLOG_KAFKA_*}) win.
   */
  public static Map<String, Object> producerProperties(ProxyConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.publish().bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    // The publisher sends what queued up over its interval in one burst: a short linger gathers
    // the burst into one batch (one lz4 stream, one sender wake-up, one produce request) without
    // adding a second wait to the interval's.
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
    // lz4: about half zstd's CPU per record, on a thread that shares
    // the cores with the event loops.
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    long maxRecord = RecordLimits.maxRecordBytes(config.capture().maxBodyBytes());
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, (int) Math.min(Integer.MAX_VALUE, maxRecord));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Math.max(64L << 20, 2 * maxRecord));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "prefixlog-capture-proxy");
    p.putAll(config.publish().kafka());
    return p;
  }

  /** The bound proxy port. */
  public int port() {
    return listeners.port();
  }

  /** The bound metrics port, or -1 when metrics are off. */
  public int metricsPort() {
    return metricsServer == null ? -1 : metricsServer.actualPort();
  }

  /** The registry the proxy counts into (shared with the KV subscriber in the bridge process). */
  public MeterRegistry metrics() {
    return components.metrics().registry();
  }

  public ProxyConfig config() {
    return config;
  }

  /** Exchanges started so far by each event loop's listener. */
  List<Long> exchangesPerEventLoop() {
    return listeners.handlers().stream().map(ProxyHandler::exchanges).toList();
  }

  /** Exchanges in progress. */
  public int inFlight() {
    return components.inFlight();
  }

  /**
   * Stops accepting, waits for the exchanges in flight (at most the drain timeout), publishes what
   * is queued, flushes and closes the producer, stops the event loops. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    long drainMillis = config.listen().drainTimeout().toMillis();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMillis);
    stopAccepting(drainMillis, deadline);
    awaitInFlight(deadline);
    if (metricsServer != null) {
      metricsServer.close();
    }
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOGGER.atWarn().setMessage("event loops did not stop in time").setCause(e).log();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    publisher.close(Duration.ofSeconds(30));
    if (ownMetrics != null) {
      ownMetrics.close();
    }
    LOGGER.atInfo().setMessage("capture proxy stopped").log();
  }

  /** Every listener stops accepting; their exchanges in flight carry on until the deadline. */
  private void stopAccepting(long drainMillis, long deadline) {
    List<Future<Void>> shutdowns = new ArrayList<>();
    for (ProxyHandler handler : listeners.handlers()) {
      shutdowns.add(handler.stopAccepting(drainMillis));
    }
    for (Future<Void> shutdown : shutdowns) {
      try {
        shutdown
            .toCompletionStage()
            .toCompletableFuture()
            .get(
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) + 1000,
                TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        LOGGER.atWarn().setMessage("proxy listener did not shut down in time").setCause(e).log();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void awaitInFlight(long deadline) {
    while (components.inFlight() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (components.inFlight() > 0) {
      LOGGER
          .atWarn()
          .setMessage("exchanges still in flight at the drain timeout")
          .addKeyValue("inFlight", components.inFlight())
          .log();
    }
  }

  private static <T> T await(Future<T> future) throws IOException {
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IOException(
          "cannot start the capture proxy: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("the capture proxy did not start within " + START_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the capture proxy", e);
    }
  }
}
