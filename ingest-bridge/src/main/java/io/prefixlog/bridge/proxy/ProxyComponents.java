package io.prefixlog.bridge.proxy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The capture proxy's components, built in one place from a {@link ProxyConfig}, each from the
 * settings record of its concern: what the listeners share (client addresses, session keys, the
 * event encoder, the capture bound, the counts of exchanges in flight and of client connections,
 * and their gauges), the listeners themselves ({@link #listen}), and for a proxy that publishes,
 * the publisher with its queue and spill ({@link #publisher}) and the ingest endpoint ({@link
 * #ingest}).
 *
 * <p>{@link CaptureProxy} builds one and runs all of it; {@link WarmUp} builds another from the
 * same settings pointed at its loopback upstream, counting into a registry of its own, and runs its
 * listeners only: the warm-up compiles the wiring production runs, not a copy of it.
 */
final class ProxyComponents {
  private final ProxyConfig config;
  private final ProxyMetrics metrics;
  private final ClientAddresses addresses;
  private final SessionKeys sessionKeys;
  private final EventFactory events;
  private final CaptureMemory captureMemory;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger openClients = new AtomicInteger();

  ProxyComponents(ProxyConfig config, ProxyMetrics metrics) {
    this.config = config;
    this.metrics = metrics;
    this.addresses = ClientAddresses.of(config.capture());
    this.sessionKeys = SessionKeys.of(config.capture(), addresses);
    this.events =
        new EventFactory(
            config.capture(),
            config.sampling(),
            config.upstream(),
            sessionKeys,
            addresses,
            metrics);
    this.captureMemory = new CaptureMemory(config.capture().memory());
    metrics.gauge("prefixlog_proxy_in_flight", "Exchanges in progress.", inFlight::get);
    metrics.gauge(
        "prefixlog_proxy_client_connections", "Client connections open.", openClients::get);
    metrics.gauge(
        "prefixlog_proxy_capture_memory_bytes",
        "Heap the request bodies of the exchanges in flight hold, with the streamed responses"
            + " collected for HTTP/1.0 clients, of PREFIXLOG_PROXY_CAPTURE_MEMORY.",
        captureMemory::used);
  }

  /**
   * The event loops: one per {@code PREFIXLOG_PROXY_EVENT_LOOPS}, two workers (the ingest
   * endpoint's validation), the native transport where there is one.
   */
  static Vertx vertx(ListenConfig listen) {
    return Vertx.vertx(
        new VertxOptions()
            .setEventLoopPoolSize(listen.eventLoops())
            .setWorkerPoolSize(2)
            .setPreferNativeTransport(true));
  }

  /**
   * The publisher, not yet started, with its bounded queue, its spill (when configured) and a
   * producer whose own meters count into {@code registry}; its queue's and spill's gauges counted
   * too.
   */
  EventPublisher publisher(MeterRegistry registry) {
    EventQueue queue = EventQueue.of(config.publish());
    SpillStore spill = config.spill().enabled() ? SpillStore.open(config.spill()) : null;
    EventPublisher publisher =
        new EventPublisher(
            queue,
            events::encode,
            () -> {
              KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProperties());
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
    return publisher;
  }

  /** The ingest endpoint, queueing into {@code publisher}. */
  IngestHandler ingest(Vertx vertx, EventPublisher publisher) {
    long maxRecordBytes =
        Long.parseLong(
            String.valueOf(producerProperties().get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)));
    return new IngestHandler(
        vertx,
        config.ingest(),
        config.capture(),
        publisher,
        metrics,
        addresses,
        maxRecordBytes,
        config.metrics().hosts());
  }

  /** The producer's settings: {@link CaptureProxy#producerProperties}. */
  Map<String, Object> producerProperties() {
    return CaptureProxy.producerProperties(config);
  }

  /** The listeners, deployed: what {@link #listen} gives once every instance listens. */
  record Listeners(String deployment, List<ProxyHandler> handlers) {
    /** The port they share. */
    int port() {
      return handlers.get(0).actualPort();
    }
  }

  /**
   * Deploys one listener per event loop, each handing its exchanges' captures to {@code sink} and
   * the proxy's own paths to {@code ingest} (null: none, 404).
   */
  Future<Listeners> listen(Vertx vertx, Consumer<CapturedExchange> sink, IngestHandler ingest) {
    Handoff handoff = new Handoff(inFlight, sink, metrics);
    // One deployment of one instance per event loop: Vert.x binds the port once and hands each
    // accepted connection to the instances in turn. All instances ask for the same port; for "any
    // free port" that is -1, which Vert.x shares within a deployment (port 0 would give every
    // instance a port of its own).
    int port = config.listen().port() == 0 ? -1 : config.listen().port();
    List<ProxyHandler> handlers = new CopyOnWriteArrayList<>();
    return vertx
        .deployVerticle(
            () -> {
              ProxyHandler handler = new ProxyHandler(this, handoff, ingest, port);
              handlers.add(handler);
              return handler;
            },
            new DeploymentOptions().setInstances(config.listen().eventLoops()))
        .map(deployment -> new Listeners(deployment, List.copyOf(handlers)));
  }

  /** What one event loop's exchanges see, with that loop's upstream pool and client bounds. */
  ExchangeContext exchangeContext(
      HttpClientAgent client, ClientConnections clients, Handoff handoff) {
    return new ExchangeContext(
        config.upstream(),
        config.capture(),
        client,
        clients,
        UploadSlots.forPool(config.upstream().connectionsPerLoop(config.listen().eventLoops())),
        captureMemory,
        sessionKeys,
        metrics,
        handoff);
  }

  ProxyConfig config() {
    return config;
  }

  ProxyMetrics metrics() {
    return metrics;
  }

  /** The raw events' encoder (the publisher thread's; the warm-up's sink encodes with it too). */
  EventFactory events() {
    return events;
  }

  /** Client connections open, all event loops together. */
  AtomicInteger openClients() {
    return openClients;
  }

  /** Exchanges in progress, all event loops together. */
  int inFlight() {
    return inFlight.get();
  }

  /** The bound of the request bodies the exchanges in flight hold. */
  CaptureMemory captureMemory() {
    return captureMemory;
  }
}
