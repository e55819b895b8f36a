package io.prefixlog.bridge.kv;

import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prefixlog.core.metrics.MetricsServer;
import io.prefixlog.core.metrics.ServiceMetrics;
import io.prefixlog.core.service.ServiceMain;
import io.prefixlog.schemas.RecordLimits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;

/**
 * The KV-event subscriber of the ingest bridge: one {@link KvSubscriber} per source (engine
 * endpoint × data-parallel rank; a receive thread and a handler thread), each with its {@link
 * SourceSequencer}, all handing records to one bounded {@link PublishQueue} drained by one {@link
 * KafkaPublisher}. Serves metrics and health; stops cleanly on SIGTERM.
 *
 * <p>Records go to {@code <prefix>kv.events} keyed by source id and to {@code <prefix>dlq}; the
 * bridge does not create topics (the stream app does, with their retention and size settings).
 */
public final class KvBridge implements AutoCloseable, ServiceMain.Service {
  private static final Logger LOGGER = LoggerFactory.getLogger(KvBridge.class);

  private static final Duration JOIN = Duration.ofSeconds(10);

  private final KvBridgeConfig config;
  private final ServiceMetrics ownMetrics;
  private final PrometheusMeterRegistry registry;
  private final KvBridgeMetrics metrics;
  private final PublishQueue queue;
  private final KafkaPublisher publisher;
  private final ZContext context = new ZContext();
  private final List<KvSubscriber> subscribers = new ArrayList<>();
  private final List<SourceSequencer> sequencers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean failed;
  private MetricsServer metricsServer;
  private boolean started;
  private boolean closed;

  /** A bridge with a metrics registry of its own (served on its metrics port, if any). */
  public KvBridge(KvBridgeConfig config) {
    this(config, null, null);
  }

  /**
   * A bridge counting into {@code shared}, the registry of the process it runs in (the bridge
   * process serves the proxy's and the subscriber's meters from one registry, so that each family
   * appears once on its endpoint).
   */
  public KvBridge(KvBridgeConfig config, PrometheusMeterRegistry shared) {
    this(config, Objects.requireNonNull(shared, "shared"), null);
  }

  KvBridge(KvBridgeConfig config, Supplier<Producer<byte[], byte[]>> producers) {
    this(config, null, producers);
  }

  private KvBridge(
      KvBridgeConfig config,
      PrometheusMeterRegistry shared,
      Supplier<Producer<byte[], byte[]>> producersOrNull) {
    this.config = config;
    this.ownMetrics = shared == null ? ServiceMetrics.create() : null;
    this.registry = shared == null ? ownMetrics.registry() : shared;
    this.metrics = new KvBridgeMetrics(registry);
    Supplier<Producer<byte[], byte[]>> producers =
        producersOrNull != null
            ? producersOrNull
            : () -> {
              KafkaProducer<byte[], byte[]> producer =
                  new KafkaProducer<>(producerProperties(config));
              // The producer's own metrics (record errors, retries, request latency, buffer).
              new KafkaClientMetrics(producer).bindTo(registry);
              return producer;
            };
    this.queue = new PublishQueue(config.topics(), config.queueRecords(), config.queueBytes());
    this.metrics.queueGauges(queue::depth, queue::bytes);
    this.publisher = new KafkaPublisher(queue, producers, metrics, config.reconnectMin());
    for (KvBridgeConfig.Subscription subscription : config.subscriptions()) {
      ReplayClient replay =
          subscription.replayEndpoint() == null
              ? null
              : new ZmqReplayClient(
                  context,
                  subscription.replayEndpoint(),
                  config.replayTimeout(),
                  config.handshakeTimeout(),
                  config.maxMessageBytes());
      SourceSequencer sequencer =
          new SourceSequencer(
              subscription.source(),
              replay,
              queue,
              metrics,
              System::currentTimeMillis,
              config.decodeLimits());
      sequencers.add(sequencer);
      subscribers.add(
          new KvSubscriber(
              context, subscription.endpoint(), config.topic(), sequencer, config, metrics));
    }
    this.metrics.receiveGauge(
        () -> subscribers.stream().mapToLong(KvSubscriber::bufferedBytes).sum());
  }

  /**
   * The producer settings: idempotent with {@code acks=all}, so that retries neither lose nor
   * reorder the records of a source; pass-through settings ({@code PREFIXLOG_KAFKA_*}) last.
   */
  public static Map<String, Object> producerProperties(KvBridgeConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
    p.put(
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
        RecordLimits.maxRecordBytesInt(config.maxMessageBytes()));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "prefixlog-ingest-bridge-kv");
    p.putAll(config.kafka());
    return p;
  }

  /** Starts the producer, the metrics endpoint and one subscriber thread per source. */
  public synchronized void start() throws IOException {
    if (started || closed) {
      throw new IllegalStateException("start() once, before close()");
    }
    started = true;
    resume();
    publisher.start();
    if (config.metricsPort() >= 0) {
      metricsServer =
          MetricsServer.start(
              config.metricsHost(),
              config.metricsPort(),
              config.allowedHosts(),
              registry,
              this::isHealthy);
    }
    for (KvSubscriber subscriber : subscribers) {
      String name = "prefixlog-kv-" + threads.size() / 2;
      startThread(subscriber, name);
      startThread(subscriber.handler(), name + "-handler");
    }
    LOGGER
        .atInfo()
        .setMessage("KV-event subscriber started")
        .addKeyValue("sources", subscribers.size())
        .addKeyValue("topic", config.topics().kvEvents().name())
        .addKeyValue("bootstrap", config.bootstrapServers())
        .addKeyValue("metricsPort", metricsPort())
        .log();
  }

  /**
   * Tells each sequencer where its source's log in {@code kv.events} stands, so that a restarted
   * bridge continues it (and asks the engine's replay for what followed) instead of publishing a
   * marker that would clear the source's block index. Kafka unreachable within {@code
   * PREFIXLOG_KV_RESUME_TIMEOUT}: the sources start as seen for the first time, which is safe (a
   * marker clears the index, which is rebuilt from what follows) but loses the index.
   */
  private void resume() {
    if (config.resumeTimeout().isZero()) {
      LOGGER.atInfo().setMessage("not reading kv.events back: PREFIXLOG_KV_RESUME_TIMEOUT=0").log();
      return;
    }
    Map<String, ResumePoint> points;
    try {
      points = PublishedLog.read(config, sequencers.stream().map(SourceSequencer::source).toList());
    } catch (KafkaException e) {
      LOGGER
          .atWarn()
          .setMessage("cannot read kv.events back; every source starts as seen for the first time")
          .addKeyValue("topic", config.topics().kvEvents().name())
          .addKeyValue("error", e.toString())
          .log();
      return;
    }
    for (SourceSequencer sequencer : sequencers) {
      ResumePoint point = points.get(sequencer.source().id());
      if (point != null) {
        sequencer.resume(point);
      }
    }
    LOGGER
        .atInfo()
        .setMessage("read kv.events back")
        .addKeyValue("topic", config.topics().kvEvents().name())
        .addKeyValue("sources", sequencers.size())
        .addKeyValue("resumed", points.size())
        .log();
  }

  /** False once a subscriber thread died of an unexpected error. */
  public boolean isHealthy() {
    return started && !closed && !failed;
  }

  public PrometheusMeterRegistry metrics() {
    return registry;
  }

  /** The port the metrics endpoint listens on, or -1. */
  public int metricsPort() {
    return metricsServer == null ? -1 : metricsServer.port();
  }

  private void startThread(Runnable loop, String name) {
    Thread thread = new Thread(loop, name);
    thread.setUncaughtExceptionHandler(
        (t, e) -> {
          failed = true;
          LOGGER
              .atError()
              .setMessage("subscriber thread failed; the bridge reports unhealthy")
              .addKeyValue("thread", t.getName())
              .setCause(e)
              .log();
        });
    threads.add(thread);
    thread.start();
  }

  /** Stops receiving, sends what is queued, closes the producer, the sockets and the endpoint. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    subscribers.forEach(KvSubscriber::stop);
    for (Thread thread : threads) {
      try {
        thread.join(JOIN.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    publisher.close(Duration.ofSeconds(30));
    context.close();
    if (metricsServer != null) {
      metricsServer.close();
    }
    if (ownMetrics != null) {
      ownMetrics.close();
    }
    LOGGER.atInfo().setMessage("KV-event subscriber stopped").log();
  }

  /**
   * Runs until SIGTERM. Settings come from the environment; {@code --config FILE} names a
   * properties file with the same keys (the environment still wins), as {@code
   * PREFIXLOG_CONFIG_FILE} does.
   */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    return ServiceMain.run(
        "KvBridge",
        "ingest-bridge",
        args,
        System.getenv(),
        List.of(KvBridgeConfig.DEFINITION),
        settings -> new KvBridge(KvBridgeConfig.fromSettings(settings)));
  }
}
