package io.prefixlog.benchmarks.streams;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.admin.TopicCreator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

/**
 * One run of one variant over the whole raw topic with a fresh application id and state directory.
 *
 * <p><b>Rate.</b> Progress is the application's committed input offsets on the raw topic (for the
 * stream app, which routes them through a repartition topic first, also its processed count),
 * polled every {@value #POLL_MILLIS} ms with the Admin API. With exactly-once the offsets commit in
 * the same transaction as the outputs and changelog records, so progress counts input records whose
 * every effect is committed and visible to a {@code read_committed} reader; the raw topic has no
 * transaction markers, so offsets are record counts. The <i>steady</i> rate is (N − progress at the
 * first poll that saw any) / (time from that poll to the first poll that saw all N): it leaves out
 * the start (threads, rebalance, store open, first fetch) and counts only committed work. The
 * <i>wall</i> rate is N / (start() to all N committed).
 *
 * <p><b>Outputs.</b> Output topics are fresh per run: the references write to a topic named after
 * the run; prefixlog's {@code session.deltas} and {@code dlq} are deleted after each run and
 * recreated (with the stream app's settings) before the next, so that no run appends to another's
 * log and the compacted deltas topic never gives the log cleaner another run's keys to clean. After
 * the streams close, the outputs are read back with a {@code read_committed} consumer and counted
 * (exactly N records, no dead letters, or the run is marked failed). The bytes the app sent to its
 * outputs and changelogs come from its producer's JMX metrics, read when all N are committed (the
 * brokers' log sizes would not do: the log cleaner compacts changelogs during the run). Then the
 * run's output and changelog topics and its state directory are deleted.
 */
final class ThroughputRun {
  static final long POLL_MILLIS = 50;
  static final Duration STALL_TIMEOUT = Duration.ofSeconds(90);

  /**
   * Everything one run needs that the runs share.
   *
   * @param settings stream-app settings every run gets (environment-variable names)
   */
  record Context(
      Admin admin,
      String bootstrap,
      CpuMeter cpu,
      String topicPrefix,
      int partitions,
      Path stateRoot,
      long records,
      Map<String, String> settings) {}

  /**
   * What one run measured.
   *
   * @param steadyRecords records committed between the first and the last progress poll
   * @param window CPU and wall time between those two polls
   * @param startupNanos start() to the first poll that saw progress
   * @param wallNanos start() to all N committed
   * @param outputRecords records in the output topic (deltas for prefixlog)
   * @param outputBytes their serialised key + value bytes (uncompressed)
   * @param deadLetters records in the dead-letter topic (prefixlog only)
   * @param outputSentBytes bytes the app's producer sent to the output topics (compressed batches,
   *     from its {@code producer-topic-metrics} {@code byte-total})
   * @param changelogSentBytes the same for its changelog topics
   * @param changelogRecords records it sent to its changelog topics (puts and tombstones)
   * @param repartitionSentBytes the same for its repartition topics (the raw events routed by
   *     session: not state, but written and read once more)
   * @param changelogSentByStore {@code changelogSentBytes} by store (the topic's name between the
   *     application id and {@code -changelog})
   * @param batchBytes the producer's {@code batch-size-avg} (compressed bytes per batch, over its
   *     last two 30 s metric windows)
   * @param compressionRatio its {@code compression-rate-avg}: compressed / uncompressed
   * @param firstProgress when the first progress poll happened (for the profile's window)
   * @param lastProgress when all N were committed
   * @param failure why the run does not count, or null
   */
  record Result(
      Variant variant,
      String round,
      String applicationId,
      long records,
      long steadyRecords,
      CpuMeter.Window window,
      long startupNanos,
      long wallNanos,
      long outputRecords,
      long outputBytes,
      long deadLetters,
      long outputSentBytes,
      long changelogSentBytes,
      long changelogRecords,
      long repartitionSentBytes,
      Map<String, Long> changelogSentByStore,
      double batchBytes,
      double compressionRatio,
      List<String> changelogs,
      Instant firstProgress,
      Instant lastProgress,
      String failure) {

    double steadyRate() {
      return steadyRecords / (window.wallNanos() / 1e9);
    }

    double wallRate() {
      return records / (wallNanos / 1e9);
    }

    boolean ok() {
      return failure == null;
    }
  }

  private final Context context;

  ThroughputRun(Context context) {
    this.context = context;
  }

  /** The stream-app configuration of a run (also used once to create the raw topic). */
  static StreamAppConfig config(Context context, String applicationId, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(context.settings());
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", context.bootstrap());
    settings.put("PREFIXLOG_TOPIC_PREFIX", context.topicPrefix());
    settings.put("PREFIXLOG_APPLICATION_ID", applicationId);
    settings.put(
        "PREFIXLOG_STATE_DIR",
        context.stateRoot().resolve(applicationId).toAbsolutePath().toString());
    settings.put("PREFIXLOG_PARTITIONS", Integer.toString(context.partitions()));
    settings.put("PREFIXLOG_STREAM_THREADS", "1");
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.putAll(extra);
    return StreamAppConfig.defaults(settings);
  }

  /** Told when a run's steady window opens and closes (the profilers sample only inside it). */
  interface Observer {
    Observer NONE = new Observer() {};

    default void steadyStarted(String applicationId, List<Long> streamThreadIds) {}

    default void steadyEnded() {}

    /**
     * The run is over and its streams closed; its topics and state directory are still there, and
     * are deleted when this returns.
     */
    default void beforeCleanup(StreamAppConfig config) throws InterruptedException {}
  }

  Result run(Variant variant, String round) throws InterruptedException {
    return run(variant, round, Observer.NONE);
  }

  Result run(Variant variant, String round, Observer observer) throws InterruptedException {
    String applicationId =
        "bench-" + variant.code().toLowerCase(java.util.Locale.ROOT) + "-" + round;
    StreamAppConfig config = config(context, applicationId, variant.settings());
    String rawTopic = config.topics().requestsRaw().name();
    List<String> outputs = new ArrayList<>();
    Runner runner;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    if (variant.isPrefixlog()) {
      outputs.add(config.topics().sessionDeltas().name());
      outputs.add(config.topics().deadLetters().name());
      // Created here, before the clock starts, as the references' output topics are.
      TopicCreator.createMissing(context.admin(), config, Duration.ofSeconds(60));
    } else {
      String output = context.topicPrefix() + "bench.out." + applicationId;
      outputs.add(output);
      createLike(config, rawTopic, output);
    }
    LongAdder routed = new LongAdder();
    if (variant.topology() == Variant.Topology.PREFIXLOG) {
      runner = new AppRunner(new StreamApp(config));
    } else {
      Topology topology =
          switch (variant.topology()) {
            case PASS_THROUGH -> ReferenceTopologies.passThrough(config, outputs.get(0));
            case STORE -> ReferenceTopologies.passThroughWithStore(config, outputs.get(0));
            case ROUTED_PASS_THROUGH ->
                ReferenceTopologies.routedPassThrough(config, outputs.get(0), routed);
            case PREFIXLOG_UNLOGGED_BASES ->
                WhatIfTopology.unloggedBases(
                    config, new StreamAppMetrics(new SimpleMeterRegistry()));
            case PREFIXLOG -> throw new IllegalStateException("runs through StreamApp");
          };
      KafkaStreams streams = new KafkaStreams(topology, StreamApp.streamsProperties(config));
      streams.setUncaughtExceptionHandler(
          e -> {
            failure.compareAndSet(null, e);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
          });
      // Behind a repartition step the raw offsets only say an event was routed (as for A).
      runner =
          new StreamsRunner(
              streams,
              variant.topology() == Variant.Topology.ROUTED_PASS_THROUGH ? routed::sum : () -> -1);
    }

    long n = context.records();
    CpuMeter cpu = context.cpu();
    long startNanos = System.nanoTime();
    List<Long> streamThreads = List.of();
    CpuMeter.Snapshot first = null;
    CpuMeter.Snapshot last = null;
    Instant firstInstant = null;
    Instant lastInstant = null;
    long firstCount = 0;
    Map<String, double[]> sent = Map.of();
    double[] batches = {Double.NaN, Double.NaN};
    String problem = null;
    try {
      runner.start();
      long lastChange = System.nanoTime();
      long previous = -1;
      while (true) {
        if (streamThreads.isEmpty()) {
          streamThreads = cpu.streamThreadIds(applicationId);
        }
        long count = committed(applicationId, rawTopic);
        boolean starts = count > 0 && first == null;
        // The stream app routes raw events through a repartition topic before the session work,
        // so its raw offsets only say they were routed: it is done when it has also processed
        // all N (its turn counters; the workload has no bad input), whose last transaction commits
        // within the
        // commit interval (100 ms) and at the latest when the streams close, before the outputs
        // are counted.
        long processed = runner.processed();
        boolean ends = count >= n && (processed < 0 || processed >= n);
        CpuMeter.Snapshot now = cpu.read(streamThreads, starts || ends);
        if (starts) {
          first = now;
          firstCount = count;
          firstInstant = Instant.now();
          observer.steadyStarted(applicationId, streamThreads);
        }
        if (ends) {
          last = now;
          lastInstant = Instant.now();
          sent = producerTopicMetrics(applicationId);
          batches = producerMetrics(applicationId);
          observer.steadyEnded();
          break;
        }
        if (count != previous) {
          previous = count;
          lastChange = System.nanoTime();
        }
        if (failure.get() != null) {
          problem = "stream thread failed: " + failure.get();
          break;
        }
        if (runner.state() == KafkaStreams.State.ERROR
            || runner.state() == KafkaStreams.State.NOT_RUNNING) {
          problem = "streams stopped in state " + runner.state();
          break;
        }
        if (System.nanoTime() - lastChange > STALL_TIMEOUT.toNanos()) {
          problem = "no progress for " + STALL_TIMEOUT.toSeconds() + " s at " + count + "/" + n;
          break;
        }
        Thread.sleep(POLL_MILLIS);
      }
    } catch (IOException | RuntimeException e) {
      problem = "failed: " + e;
    } finally {
      runner.close();
    }
    long wallNanos = last == null ? 0 : last.wallNanos() - startNanos;
    long startupNanos = first == null ? 0 : first.wallNanos() - startNanos;

    Map<String, long[]> counted = count(outputs);
    long outputRecords = counted.get(outputs.get(0))[0];
    long outputBytes = counted.get(outputs.get(0))[1];
    long deadLetters = variant.isPrefixlog() ? counted.get(outputs.get(1))[0] : 0;
    if (problem == null && (outputRecords != n || deadLetters != 0)) {
      problem =
          "expected "
              + n
              + " outputs and no dead letters, got "
              + outputRecords
              + " and "
              + deadLetters;
    }
    List<String> changelogs = changelogs(applicationId);
    long outputSent = 0;
    long changelogSent = 0;
    long changelogRecords = 0;
    long repartitionSent = 0;
    Map<String, Long> byStore = new java.util.TreeMap<>();
    for (Map.Entry<String, double[]> e : sent.entrySet()) {
      String topic = e.getKey();
      if (outputs.contains(topic)) {
        outputSent += (long) e.getValue()[0];
      } else if (topic.startsWith(applicationId + "-") && topic.endsWith("-repartition")) {
        repartitionSent += (long) e.getValue()[0];
      } else if (topic.startsWith(applicationId + "-")) {
        changelogSent += (long) e.getValue()[0];
        changelogRecords += (long) e.getValue()[1];
        String store = topic.substring(applicationId.length() + 1).replaceFirst("-changelog$", "");
        byStore.merge(store, (long) e.getValue()[0], Long::sum);
      }
    }

    if (problem == null) {
      observer.beforeCleanup(config);
    }
    List<String> doomed = new ArrayList<>(outputs);
    doomed.addAll(changelogs);
    deleteTopics(doomed);
    ScratchDirs.deleteRecursively(config.stateDir());

    CpuMeter.Window window =
        first != null && last != null ? last.since(first) : CpuMeter.Window.empty();
    return new Result(
        variant,
        round,
        applicationId,
        n,
        first != null && last != null ? n - firstCount : 0,
        window,
        startupNanos,
        wallNanos,
        outputRecords,
        outputBytes,
        deadLetters,
        outputSent,
        changelogSent,
        changelogRecords,
        repartitionSent,
        byStore,
        batches[0],
        batches[1],
        changelogs,
        firstInstant,
        lastInstant,
        problem);
  }

  /** The sum of the group's committed offsets on {@code topic}; 0 before the first commit. */
  private long committed(String group, String topic) throws InterruptedException {
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          context
              .admin()
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS);
      long sum = 0;
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
        if (e.getKey().topic().equals(topic) && e.getValue() != null) {
          sum += e.getValue().offset();
        }
      }
      return sum;
    } catch (ExecutionException | TimeoutException e) {
      return 0; // the group does not exist yet, or the coordinator is loading
    }
  }

  /** A topic with the same settings as {@code like} from the stream app's plan. */
  private void createLike(StreamAppConfig config, String like, String name)
      throws InterruptedException {
    NewTopic model =
        TopicCreator.plan(config).stream()
            .filter(t -> t.name().equals(like))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no planned topic " + like));
    NewTopic topic =
        new NewTopic(name, config.partitions(), config.replicationFactor())
            .configs(model.configs());
    try {
      context.admin().createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create " + name + ": " + e, e);
    }
  }

  /** Per topic: {records, key + value bytes}, read_committed, from the start to the end. */
  private Map<String, long[]> count(List<String> topics) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 20);
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-output-counter");
    Map<String, long[]> counts = new HashMap<>();
    topics.forEach(t -> counts.put(t, new long[2]));
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
          partitions.add(new TopicPartition(topic, info.partition()));
        }
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("cannot read " + topics + " to the end within 120 s");
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          long[] c = counts.get(r.topic());
          c[0]++;
          c[1] += Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
        }
      }
    }
    return counts;
  }

  private List<String> changelogs(String applicationId) throws InterruptedException {
    try {
      Set<String> names = context.admin().listTopics().names().get(30, TimeUnit.SECONDS);
      return names.stream()
          .filter(t -> t.startsWith(applicationId + "-") && t.endsWith("-changelog"))
          .sorted()
          .toList();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot list topics: " + e, e);
    }
  }

  /**
   * Per topic: {bytes, records} the app's producers sent, from their JMX {@code
   * producer-topic-metrics} ({@code byte-total} counts the batches as sent: compressed).
   */
  private static Map<String, double[]> producerTopicMetrics(String applicationId) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Map<String, double[]> sent = new HashMap<>();
    try {
      for (ObjectName name :
          server.queryNames(new ObjectName("kafka.producer:type=producer-topic-metrics,*"), null)) {
        String client = name.getKeyProperty("client-id");
        String topic = name.getKeyProperty("topic");
        if (client == null || topic == null || !client.startsWith(applicationId)) {
          continue;
        }
        double bytes = ((Number) server.getAttribute(name, "byte-total")).doubleValue();
        double records = ((Number) server.getAttribute(name, "record-send-total")).doubleValue();
        sent.merge(
            topic,
            new double[] {bytes, records},
            (a, b) -> new double[] {a[0] + b[0], a[1] + b[1]});
      }
    } catch (JMException e) {
      throw new IllegalStateException("cannot read the producer metrics: " + e, e);
    }
    return sent;
  }

  /** {batch-size-avg, compression-rate-avg} of the app's producer, from JMX. */
  private static double[] producerMetrics(String applicationId) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      for (ObjectName name :
          server.queryNames(new ObjectName("kafka.producer:type=producer-metrics,*"), null)) {
        String client = name.getKeyProperty("client-id");
        if (client != null && client.startsWith(applicationId)) {
          return new double[] {
            ((Number) server.getAttribute(name, "batch-size-avg")).doubleValue(),
            ((Number) server.getAttribute(name, "compression-rate-avg")).doubleValue()
          };
        }
      }
    } catch (JMException e) {
      throw new IllegalStateException("cannot read the producer metrics: " + e, e);
    }
    return new double[] {Double.NaN, Double.NaN};
  }

  /** Deletes the topics and waits until the broker no longer lists them. */
  private void deleteTopics(List<String> topics) throws InterruptedException {
    try {
      context.admin().deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < deadline) {
        Set<String> names = context.admin().listTopics().names().get(30, TimeUnit.SECONDS);
        if (topics.stream().noneMatch(names::contains)) {
          return;
        }
        Thread.sleep(100);
      }
      throw new IllegalStateException("topics " + topics + " still listed 60 s after deletion");
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot delete " + topics + ": " + e, e);
    }
  }

  /** Starts and stops either the real app or a plain KafkaStreams. */
  private interface Runner {
    void start() throws IOException, InterruptedException;

    /** Inputs fully processed so far, or -1 when the runner cannot tell. */
    default long processed() {
      return -1;
    }

    KafkaStreams.State state();

    void close();
  }

  private record AppRunner(StreamApp app) implements Runner {
    @Override
    public void start() throws IOException, InterruptedException {
      app.start();
    }

    @Override
    public long processed() {
      MeterRegistry registry = app.metrics().registry();
      return Meters.count(registry, "prefixlog_turns_total", "kind", "delta")
          + Meters.count(registry, "prefixlog_turns_total", "kind", "full")
          + Meters.count(registry, "prefixlog_duplicate_requests_total");
    }

    @Override
    public KafkaStreams.State state() {
      return app.state();
    }

    @Override
    public void close() {
      app.close();
    }
  }

  private record StreamsRunner(KafkaStreams streams, LongSupplier processedCount)
      implements Runner {
    @Override
    public void start() {
      streams.start();
    }

    @Override
    public long processed() {
      return processedCount.getAsLong();
    }

    @Override
    public KafkaStreams.State state() {
      return streams.state();
    }

    @Override
    public void close() {
      streams.close(Duration.ofSeconds(30));
    }
  }
}
