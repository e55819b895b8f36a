package io.prefixlog.streams;

import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.MetricsServer;
import io.prefixlog.core.metrics.ServiceMetrics;
import io.prefixlog.core.service.ServiceMain;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.streams.admin.LimitCheck;
import io.prefixlog.streams.admin.RetentionCheck;
import io.prefixlog.streams.admin.TopicCompression;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.streams.errors.DeserializationErrors;
import io.prefixlog.streams.errors.ErrorWiring;
import io.prefixlog.streams.errors.ProcessingErrors;
import io.prefixlog.streams.errors.ProductionErrors;
import io.prefixlog.streams.errors.ThreadFailures;
import io.prefixlog.streams.query.StateAnswer;
import io.prefixlog.streams.query.StateEndpoint;
import io.prefixlog.streams.query.StateQueries;
import io.prefixlog.streams.state.BoundedRocksDbMemory;
import io.prefixlog.streams.topology.PrefixlogTopology;
import io.prefixlog.streams.upgrade.FormatGenerations;
import io.prefixlog.streams.upgrade.GroupGuard;
import io.prefixlog.streams.upgrade.TopologyFingerprint;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.function.BiFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream app: creates its topics when absent, refuses to join a group whose running members
 * have another topology, runs the topology with exactly-once v2, serves metrics and health, and
 * stops cleanly on SIGTERM.
 */
public final class StreamApp implements AutoCloseable, ServiceMain.Service {
  private static final Logger LOGGER = LoggerFactory.getLogger(StreamApp.class);

  private final StreamAppConfig config;
  private final ServiceMetrics serviceMetrics;
  private final StreamAppMetrics metrics;
  private final KafkaStreams streams;
  private final KafkaStreamsMetrics streamsMetrics;
  private final ThreadFailures threadFailures;
  private final GroupGuard groupGuard;
  private MetricsServer metricsServer;
  private boolean closed;

  public StreamApp(StreamAppConfig config) {
    this(config, PrefixlogTopology::build);
  }

  /**
   * The app running the topology {@code topology} builds rather than {@link PrefixlogTopology}'s:
   * for tests that need an instance with another topology (the group check refuses it).
   */
  public StreamApp(
      StreamAppConfig config, BiFunction<StreamAppConfig, StreamAppMetrics, Topology> topology) {
    this.config = config;
    this.serviceMetrics = ServiceMetrics.create();
    this.metrics = new StreamAppMetrics(serviceMetrics.registry());
    Topology built = topology.apply(config, metrics);
    Properties properties = streamsProperties(config, metrics);
    // The guard names this instance by its client id, which the group lists as the prefix of its
    // members' (Kafka Streams' own default, the application id and a random process id, is not
    // known before the streams start).
    String clientId =
        config
            .kafka()
            .getOrDefault(
                StreamsConfig.CLIENT_ID_CONFIG, config.applicationId() + "-" + UUID.randomUUID());
    properties.put(StreamsConfig.CLIENT_ID_CONFIG, clientId);
    this.groupGuard =
        new GroupGuard(
            config.applicationId(),
            clientId,
            TopologyFingerprint.of(built),
            FormatGenerations.KNOWN.newest(),
            config.formatsToWrite(),
            GroupGuard.clientConfig(config.bootstrapServers(), config.kafka()),
            config.replicationFactor(),
            Duration.ofSeconds(60));
    this.streams = new KafkaStreams(built, properties);
    // Every Kafka Streams metric (thread, task, processor node, state store, RocksDB, record
    // cache) and its embedded clients' (consumer lag, producer errors), as Kafka's own tools name
    // them: what an operator of any Kafka Streams application already has dashboards for.
    this.streamsMetrics = new KafkaStreamsMetrics(streams);
    streamsMetrics.bindTo(serviceMetrics.registry());
    this.threadFailures =
        new ThreadFailures(
            config.threadFailureLimit(), config.threadFailureWindow(), System::currentTimeMillis);
    // The data errors the app knows of never reach this handler (the processing, production and
    // deserialization handlers turn them into dead letters or counted skips), so a dead thread is
    // an infrastructure failure or a bug. It is replaced, its tasks restored from the changelogs;
    // but at the limit within the window the same failure is evidently killing every
    // replacement, and the client stops: looping helps nobody, the state ERROR and /health's 503
    // with the reason make it visible, and an orchestrator can restart or page.
    streams.setUncaughtExceptionHandler(
        e -> {
          metrics.threadFailures().increment();
          if (threadFailures.record(e)) {
            LOGGER
                .atError()
                .setMessage("stream thread failed too often; stopping the streams")
                .addKeyValue("problem", threadFailures.problem().orElse(""))
                .setCause(e)
                .log();
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
          }
          LOGGER.atError().setMessage("stream thread failed; replacing it").setCause(e).log();
          return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
  }

  /**
   * The Kafka Streams settings with error handlers that count into a registry of their own: for
   * tools and benchmarks that do not read the app's metrics.
   */
  public static Properties streamsProperties(StreamAppConfig config) {
    return streamsProperties(config, new StreamAppMetrics(new SimpleMeterRegistry()));
  }

  /**
   * The Kafka Streams settings: exactly-once v2, sizes for 16 MiB bodies, the error handlers
   * (counting into {@code metrics}), and pass-throughs.
   */
  public static Properties streamsProperties(StreamAppConfig config, StreamAppMetrics metrics) {
    Map<String, Object> p = new HashMap<>();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toAbsolutePath().toString());
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, config.standbyReplicas());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.replicationFactor());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitInterval().toMillis());
    if (config.applicationServer() != null) {
      // Every instance learns where the others serve state queries (the group's metadata).
      p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, config.applicationServer().toString());
    }
    int maxRecord = RecordLimits.maxRecordBytesInt(config.maxBodyBytes());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), maxRecord);
    // Internal topics (the raw events' repartition topic, the changelogs) take records as large as
    // the raw topic does; the broker's default (1 MiB) would refuse a 2 MiB body on its way to the
    // session state.
    p.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), maxRecord);
    // buffer.memory (32 MiB by default) must hold a record of the largest size, or the producer
    // refuses it (RecordTooLargeException) although max.request.size allows it.
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.BUFFER_MEMORY_CONFIG),
        Math.max(32L << 20, 2L * maxRecord));
    // lz4 on the stream thread; the broker stores each kept topic at its own zstd level.
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG),
        TopicCompression.PRODUCER_CODEC);
    // A ~20 KB body overflows the 16 KiB default batch, so every changelog record was a batch of
    // its own with a fresh zstd context: 1 MiB batches doubled throughput and shrank the bytes
    // sent (StreamThroughputBenchmark, variant G).
    p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 1 << 20);
    // The input a thread buffers is bounded in records, not bytes: few, since a record can be a
    // body of megabytes. Fetches stay whole-batch: a batch larger than the fetch sizes still comes.
    p.put(StreamsConfig.BUFFERED_RECORDS_PER_PARTITION_CONFIG, config.bufferedRecords());
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG), maxRecord);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_BYTES_CONFIG), maxRecord);
    p.put(
        StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, ProductionErrors.class.getName());
    p.put(
        StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, ProcessingErrors.class.getName());
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeserializationErrors.class.getName());
    p.put(
        ErrorWiring.CONFIG,
        new ErrorWiring(metrics.registry(), config.topics().deadLetters().name()));
    if (config.rocksDbMemoryBytes() > 0) {
      p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbMemory.class);
      p.put(BoundedRocksDbMemory.MEMORY_BYTES_CONFIG, config.rocksDbMemoryBytes());
    }
    p.putAll(config.kafka());
    Properties properties = new Properties();
    properties.putAll(p);
    return properties;
  }

  /**
   * Creates the topics, checks the broker's and the topics' size limits ({@link LimitCheck}) and
   * the topics' retention ({@link RetentionCheck}), checks this instance against the group's
   * running members ({@link GroupGuard}: the same topology, formats they read), starts the streams
   * and the metrics endpoint.
   *
   * @throws io.prefixlog.streams.upgrade.IncompatibleGroupException when a running member has
   *     another topology or cannot share formats with this instance
   */
  public void start() throws InterruptedException, IOException {
    Properties adminProperties = new Properties();
    adminProperties.putAll(config.kafka());
    adminProperties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    try (Admin admin = Admin.create(adminProperties)) {
      TopicCreator.createMissing(admin, config, Duration.ofSeconds(60));
      LimitCheck.requireLimits(admin, config, Duration.ofSeconds(60));
      RetentionCheck.requireRetention(admin, config, Duration.ofSeconds(60));
      groupGuard.checkAndRegister(admin);
    }
    if (config.metricsPort() >= 0) {
      metricsServer =
          MetricsServer.startWithRoutes(
              config.metricsHost(),
              config.metricsPort(),
              config.allowedHosts(),
              serviceMetrics.registry(),
              this::problem,
              Map.of(StateEndpoint.PATH, new StateEndpoint(stateSource(), config.stateToken())));
    }
    streams.start();
    LOGGER
        .atInfo()
        .setMessage("stream app started")
        .addKeyValue("applicationId", config.applicationId())
        .addKeyValue("bootstrap", config.bootstrapServers())
        .addKeyValue("metricsPort", metricsServer == null ? -1 : metricsServer.port())
        .addKeyValue("formatGeneration", config.formatsToWrite().number())
        .addKeyValue("newestFormatGeneration", FormatGenerations.KNOWN.newest().number())
        .log();
  }

  /**
   * Where the state queries are answered from: the stores of this instance and its peers, or, with
   * no {@code PREFIXLOG_APPLICATION_SERVER}, an answer saying they are off.
   */
  private StateEndpoint.Source stateSource() {
    StreamAppConfig.HostAndPort server = config.applicationServer();
    if (server == null) {
      return (sessionKey, forwarded) ->
          StateAnswer.problem(
              404,
              sessionKey,
              StateAnswer.DISABLED,
              "state queries are off: PREFIXLOG_APPLICATION_SERVER is not set");
    }
    return new StateQueries(
        streams,
        new HostInfo(server.host(), server.port()),
        config.stateToken(),
        config.sessionTtl(),
        config.sessionSeqRetention());
  }

  public boolean isHealthy() {
    return problem().isEmpty();
  }

  /**
   * Empty while the streams run (or rebalance); else what is wrong: the thread failures that
   * stopped the app, or the state the streams are in.
   */
  public Optional<String> problem() {
    Optional<String> failures = threadFailures.problem();
    if (failures.isPresent()) {
      return failures;
    }
    KafkaStreams.State state = streams.state();
    return state == KafkaStreams.State.RUNNING || state == KafkaStreams.State.REBALANCING
        ? Optional.empty()
        : Optional.of("streams " + state);
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
    // Leave the group at once rather than after the session timeout: the group guard of an
    // instance started next (a restart, the next build of a rolling upgrade) must not find this
    // one listed as a live member once its registration is gone.
    streams.close(
        CloseOptions.timeout(Duration.ofSeconds(30))
            .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
    groupGuard.deregister();
    if (metricsServer != null) {
      metricsServer.close();
    }
    streamsMetrics.close();
    serviceMetrics.close();
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
        List.of(StreamAppConfig.DEFINITION),
        settings -> new StreamApp(StreamAppConfig.fromSettings(settings)));
  }
}
