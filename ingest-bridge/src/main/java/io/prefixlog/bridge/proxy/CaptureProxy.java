package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prefixlog.core.metrics.MetricsServer;
import io.prefixlog.core.metrics.ServiceMetrics;
import io.prefixlog.schemas.RecordLimits;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
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
 */
public final class CaptureProxy implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(CaptureProxy.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final ProxyConfig config;
  private final Vertx vertx;
  private final ProxyMetrics metrics;
  private final EventPublisher publisher;
  private final List<ProxyHandler> handlers;
  private final AtomicInteger inFlight;
  private final HttpServer metricsServer;
  private final ServiceMetrics ownMetrics;
  private final int port;
  private boolean closed;

  private CaptureProxy(
      ProxyConfig config,
      Vertx vertx,
      ServiceMetrics ownMetrics,
      ProxyMetrics metrics,
      EventPublisher publisher,
      List<ProxyHandler> handlers,
      AtomicInteger inFlight,
      HttpServer metricsServer,
      int port) {
    this.config = config;
    this.vertx = vertx;
    this.ownMetrics = ownMetrics;
    this.metrics = metrics;
    this.publisher = publisher;
    this.handlers = handlers;
    this.inFlight = inFlight;
    this.metricsServer = metricsServer;
    this.port = port;
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
   * of that shape (the AOT cache's training runs {@link WarmUp.Shape#PRODUCTION}).
   */
  static CaptureProxy start(
      ProxyConfig config,
      PrometheusMeterRegistry shared,
      BooleanSupplier alsoHealthy,
      Consumer<WarmUp.Result> warmedUp,
      WarmUp.Shape shape)
      throws IOException {
    if (config.capture().usesDevSecret()) {
      LOGGER
          .atWarn()
          .setMessage(
              "PREFIXLOG_SESSION_SECRET is not set: using the development secret; session keys of"
                  + " guessable ids can be recomputed by anyone")
          .log();
    }
    ServiceMetrics ownMetrics = shared == null ? ServiceMetrics.create() : null;
    PrometheusMeterRegistry registry = shared == null ? ownMetrics.registry() : shared;
    ProxyMetrics metrics = new ProxyMetrics(registry, config.metrics().histograms());
    SpillStore spill =
        config.spill().dir() == null
            ? null
            : new SpillStore(
                config.spill().dir(),
                config.spill().maxBytes(),
                config.spill().segmentBytes(),
                new SpillStore.SyncPolicy(config.spill().fsyncInterval()),
                SpillStore.RecordFormat.of(config.spill().format()));
    EventQueue queue =
        new EventQueue(config.publish().queueEvents(), config.publish().queueBytes());
    ClientAddresses addresses = ClientAddresses.of(config.capture());
    SessionKeys sessionKeys = SessionKeys.of(config.capture(), addresses);
    EventFactory factory =
        new EventFactory(
            config.capture(),
            config.sampling(),
            config.upstream(),
            sessionKeys,
            addresses,
            metrics);
    EventPublisher publisher =
        new EventPublisher(
            queue,
            factory::encode,
            () -> {
              KafkaProducer<String, byte[]> producer =
                  new KafkaProducer<>(producerProperties(config));
              // The producer's own metrics (record errors, retries, request latency, buffer).
              new KafkaClientMetrics(producer).bindTo(registry);
              return producer;
            },
            config.publish().topics().requestsRaw().name(),
            metrics,
            spill,
            EventPublisher.Pace.of(config.publish(), config.spill()),
            RecordTime.of(config.publish(), metrics));
    metrics.gauge("prefixlog_proxy_queue_depth", "Events waiting for the publisher.", queue::depth);
    metrics.gauge("prefixlog_proxy_queue_bytes", "Bytes waiting for the publisher.", queue::bytes);
    metrics.gauge(
        "prefixlog_proxy_spill_pending_events",
        "Spilled events not yet acknowledged by Kafka.",
        publisher::spillPending);
    metrics.gauge(
        "prefixlog_proxy_spill_bytes", "Bytes in the spill directory.", publisher::spillBytes);
    metrics.gauge(
        "prefixlog_proxy_spill_quarantined",
        "Runs of corrupt spill bytes moved to the quarantine directory since the proxy started"
            + " (each at least one event that will not reach Kafka; its bytes are kept there).",
        publisher::spillQuarantined);
    AtomicInteger inFlight = new AtomicInteger();
    metrics.gauge("prefixlog_proxy_in_flight", "Exchanges in progress.", inFlight::get);
    AtomicInteger openClients = new AtomicInteger();
    metrics.gauge(
        "prefixlog_proxy_client_connections", "Client connections open.", openClients::get);
    CaptureMemory captureMemory = new CaptureMemory(config.captureMemory());
    metrics.gauge(
        "prefixlog_proxy_capture_memory_bytes",
        "Heap the request bodies of the exchanges in flight hold, of PREFIXLOG_PROXY_CAPTURE_MEMORY.",
        captureMemory::used);
    publisher.start();
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(config.listen().eventLoops())
                .setWorkerPoolSize(2)
                .setPreferNativeTransport(true));
    try {
      IngestHandler ingest =
          new IngestHandler(
              vertx,
              config,
              publisher,
              metrics,
              addresses,
              Long.parseLong(
                  String.valueOf(
                      producerProperties(config).get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG))));
      // /health is up during the warm-up, so that an orchestrator sees the proxy is starting:
      // 503 "warming_up" until the listener is open (a readiness probe, not a liveness one).
      AtomicBoolean serving = new AtomicBoolean();
      HttpServer metricsServer = null;
      if (config.metrics().port() >= 0) {
        metricsServer = startMetrics(vertx, config, registry, publisher, alsoHealthy, serving);
      }
      // The warm-up runs on the same event loops, before the listener opens: the first clients
      // meet compiled code rather than the interpreter and the JIT's compile queue.
      if (!config.warmUp().duration().isZero()) {
        LOGGER
            .atInfo()
            .setMessage("capture proxy warming up before it listens")
            .addKeyValue("maxMillis", config.warmUp().duration().toMillis())
            .addKeyValue("quietMillis", config.warmUp().quiet().toMillis())
            .log();
        WarmUp.Result warmUp =
            WarmUp.run(vertx, config, config.warmUp().duration(), config.warmUp().quiet(), shape);
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
      // One deployment of one instance per event loop: Vert.x binds the port once and hands
      // each accepted connection to the instances in turn. All instances ask for the same port;
      // for "any free port" that is -1, which Vert.x shares within a deployment (port 0 would
      // give every instance a port of its own).
      List<ProxyHandler> handlers = new CopyOnWriteArrayList<>();
      int requested = config.listen().port() == 0 ? -1 : config.listen().port();
      await(
          vertx.deployVerticle(
              () -> {
                ProxyHandler handler =
                    new ProxyHandler(
                        config,
                        sessionKeys,
                        metrics,
                        publisher::offer,
                        ingest,
                        inFlight,
                        openClients,
                        captureMemory,
                        requested);
                handlers.add(handler);
                return handler;
              },
              new DeploymentOptions().setInstances(config.listen().eventLoops())));
      int port = handlers.get(0).actualPort();
      serving.set(true);
      LOGGER
          .atInfo()
          .setMessage("capture proxy listening")
          .addKeyValue("listen", config.listen().host() + ":" + port)
          .addKeyValue("upstream", config.upstream().origin())
          .addKeyValue("topic", config.publish().topics().requestsRaw().name())
          .addKeyValue("bootstrap", config.publish().bootstrapServers())
          .addKeyValue("metricsPort", metricsServer == null ? -1 : metricsServer.actualPort())
          .addKeyValue("spill", config.spill().dir())
          .addKeyValue("ingest", config.ingest().token() != null)
          .addKeyValue("nativeTransport", vertx.isNativeTransportEnabled())
          .addKeyValue("capturePriority", config.publish().capturePriority())
          .addKeyValue("publishInterval", config.publish().interval())
          .addKeyValue("captureMemory", config.captureMemory())
          .log();
      return new CaptureProxy(
          config, vertx, ownMetrics, metrics, publisher, handlers, inFlight, metricsServer, port);
    } catch (IOException | RuntimeException e) {
      vertx.close();
      publisher.close(Duration.ofSeconds(1));
      if (ownMetrics != null) {
        ownMetrics.close();
      }
      throw e;
    }
  }

  private static HttpServer startMetrics(
      Vertx vertx,
      ProxyConfig config,
      PrometheusMeterRegistry registry,
      EventPublisher publisher,
      BooleanSupplier alsoHealthy,
      AtomicBoolean serving)
      throws IOException {
    HttpServer server =
        vertx
            .createHttpServer(
                new HttpServerOptions()
                    .setHost(config.metrics().host())
                    .setPort(config.metrics().port()))
            .requestHandler(
                request -> {
                  switch (request.path()) {
                    case "/metrics" -> {
                      String type = MetricsServer.contentType(request.getHeader("Accept"));
                      String text = registry.scrape(type);
                      request
                          .response()
                          .putHeader("Content-Type", type)
                          .end(Buffer.buffer(text.getBytes(StandardCharsets.UTF_8)));
                    }
                    case "/health" -> {
                      boolean listening = serving.get();
                      boolean ok = listening && alsoHealthy.getAsBoolean() && publisher.healthy();
                      String body =
                          "{\"status\":\""
                              + (ok ? "ok" : listening ? "unhealthy" : "warming_up")
                              + "\",\"kafka\":\""
                              + publisher.kafkaState()
                              + "\",\"queue_depth\":"
                              + publisher.queueDepth()
                              + "}\n";
                      request
                          .response()
                          .setStatusCode(ok ? 200 : 503)
                          .putHeader("Content-Type", "application/json")
                          .end(body);
                    }
                    default -> request.response().setStatusCode(404).end("not found\n");
                  }
                });
    await(server.listen());
    return server;
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
    return port;
  }

  /** The bound metrics port, or -1 when metrics are off. */
  public int metricsPort() {
    return metricsServer == null ? -1 : metricsServer.actualPort();
  }

  /** The registry the proxy counts into (shared with the KV subscriber in the bridge process). */
  public MeterRegistry metrics() {
    return metrics.registry();
  }

  public ProxyConfig config() {
    return config;
  }

  /** Exchanges started so far by each event loop's listener. */
  List<Long> exchangesPerEventLoop() {
    return handlers.stream().map(ProxyHandler::exchanges).toList();
  }

  /** Exchanges in progress. */
  public int inFlight() {
    return inFlight.get();
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
    List<Future<Void>> shutdowns = new ArrayList<>();
    for (ProxyHandler handler : handlers) {
      shutdowns.add(handler.stopAccepting(drainMillis));
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMillis);
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
    while (inFlight.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (inFlight.get() > 0) {
      LOGGER
          .atWarn()
          .setMessage("exchanges still in flight at the drain timeout")
          .addKeyValue("inFlight", inFlight.get())
          .log();
    }
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
