package io.prefixlog.streams;

import io.prefixlog.core.metrics.MetricsRegistry;
import io.prefixlog.core.metrics.MetricsServer;
import io.prefixlog.core.service.ServiceMain;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream app: creates its topics when absent, runs the topology with exactly-once v2, serves
 * metrics and health, and stops cleanly on SIGTERM.
 */
public final class StreamApp implements AutoCloseable, ServiceMain.Service {
  private static final Logger LOGGER = LoggerFactory.getLogger(StreamApp.class);

  private final StreamAppConfig config;
  private final StreamAppMetrics metrics;
  private final KafkaStreams streams;
  private MetricsServer metricsServer;
  private boolean closed;

  public StreamApp(StreamAppConfig config) {
    this.config = config;
    this.metrics = new StreamAppMetrics(new MetricsRegistry());
    this.streams =
        new KafkaStreams(PrefixlogTopology.build(config, metrics), streamsProperties(config));
    // A thread that dies on an unexpected error is replaced; its tasks restore from changelogs.
    streams.setUncaughtExceptionHandler(
        e -> {
          LOGGER.atError().setMessage("stream thread failed; replacing it").setCause(e).log();
          return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
  }

  /** The Kafka Streams settings: exactly-once v2, sizes for 16 MiB bodies, and pass-throughs. */
  public static Properties streamsProperties(StreamAppConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toAbsolutePath().toString());
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, config.standbyReplicas());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.replicationFactor());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitInterval().toMillis());
    int maxRecord = (int) Math.min(Integer.MAX_VALUE, config.maxRecordBytes());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), maxRecord);
    // Internal topics (the raw events' repartition topic, the changelogs) take records as large as
    // the raw topic does; the broker's default (1 MiB) would refuse a 2 MiB body on its way to the
    // session state.
    p.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), maxRecord);
    p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "zstd");
    // A ~20 KB body overflows the 16 KiB default batch, so every changelog record was a batch of
    // its own with a fresh zstd context: 1 MiB batches doubled throughput and shrank the bytes
    // sent (StreamThroughputBenchmark, variant G).
    p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 1 << 20);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG), maxRecord);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_BYTES_CONFIG), maxRecord);
    p.putAll(config.kafka());
    Properties properties = new Properties();
    properties.putAll(p);
    return properties;
  }

  /** Creates the topics, starts the streams and the metrics endpoint. */
  public void start() throws InterruptedException, IOException {
    Properties adminProperties = new Properties();
    adminProperties.putAll(config.kafka());
    adminProperties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    try (Admin admin = Admin.create(adminProperties)) {
      TopicCreator.createMissing(admin, config, Duration.ofSeconds(60));
    }
    if (config.metricsPort() >= 0) {
      metricsServer =
          MetricsServer.start(
              config.metricsHost(), config.metricsPort(), metrics.registry(), this::isHealthy);
    }
    streams.start();
    LOGGER
        .atInfo()
        .setMessage("stream app started")
        .addKeyValue("applicationId", config.applicationId())
        .addKeyValue("bootstrap", config.bootstrapServers())
        .addKeyValue("metricsPort", metricsServer == null ? -1 : metricsServer.port())
        .log();
  }

  public boolean isHealthy() {
    KafkaStreams.State state = streams.state();
    return state == KafkaStreams.State.RUNNING || state == KafkaStreams.State.REBALANCING;
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  public StreamAppMetrics metrics() {
    return metrics;
  }

  /** The port the metrics endpoint listens on, or -1. */
  public int metricsPort() {
    return metricsServer == null ? -1 : metricsServer.port();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    streams.close(Duration.ofSeconds(30));
    if (metricsServer != null) {
      metricsServer.close();
    }
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
        "StreamApp",
        "stream-app",
        args,
        System.getenv(),
        settings -> new StreamApp(StreamAppConfig.fromSettings(settings)));
  }
}
