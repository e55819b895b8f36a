package io.prefixlog.benchmarks.agent;

import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.Ports;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The stream app as it is deployed, on a real broker: its own JVM ({@code StreamApp}'s main, one
 * stream thread, the service's settings but these), started once and fed round after round of
 * events, produced to its raw topic as the capture proxy produces them, so that a round measures
 * the app warm, as it runs at line rate. Per round it reports the rate at which the app takes
 * bodies in (its own counters, polled on its metrics endpoint), its stream thread's CPU and its
 * resident memory (from {@code /proc}), what the round added to the output topics on the broker's
 * disk, and whether every turn of the round rebuilds from the deltas topic.
 */
final class StreamAppRun implements AutoCloseable {
  private static final String CLIENT_ID = "ab";

  /** Kafka Streams names its stream threads {@code <client id>-StreamThread-<n>}. */
  private static final Pattern STREAM_THREAD = Pattern.compile(CLIENT_ID + "-StreamThread-\\d+");

  private static final Pattern METRIC =
      Pattern.compile("^(prefixlog_turns_total|prefixlog_body_bytes_in_total)(\\{[^}]*})? (\\S+)$");

  private static final Duration STALL = Duration.ofSeconds(120);

  private static final String NAME = "agentbench";

  /**
   * One round's figures.
   *
   * @param steadyMegabytesPerSecond bodies taken in per second, from the round's first turn to its
   *     last
   * @param streamThreadMegabytesPerCpuSecond the same bodies over the stream thread's CPU time in
   *     the same window: what one stream thread sustains when nothing else takes its core; NaN when
   *     the stream thread was replaced during the round
   * @param jitCpuSeconds the app's JIT compiler threads' CPU time in the window: above a few tenths
   *     of a second, the round ran partly on code still being compiled
   * @param gcCpuMillisPerMegabyte the app's garbage collector threads' CPU time in the window, per
   *     MB of bodies: work the stream thread's allocations cause on other threads
   * @param peakRssMiB the app's resident memory at its highest so far ({@code VmHWM})
   * @param deltaDiskBytes what the round added to {@code session.deltas}' log segments
   * @param lookupDiskBytes what the round added to {@code chunk.lookups}' log segments
   */
  record Result(
      long turns,
      double steadyMegabytesPerSecond,
      double streamThreadMegabytesPerCpuSecond,
      double jitCpuSeconds,
      double gcCpuMillisPerMegabyte,
      long peakRssMiB,
      long deltaDiskBytes,
      long lookupDiskBytes,
      RebuildReport rebuild) {}

  private final KafkaBroker broker;
  private final Topics topics = Topics.withPrefix(NAME + ".");
  private final HttpClient http = HttpClient.newHttpClient();
  private final ChildProcess app;
  private final int metricsPort;
  private double turnsSoFar;
  private long deltaBytesSoFar;
  private long lookupBytesSoFar;
  private final Map<TopicPartition, Long> deltasReadTo = new HashMap<>();

  /**
   * Starts a broker and the app.
   *
   * @param settings stream-app settings over the run's own
   * @param jvmFlags the app JVM's flags
   */
  StreamAppRun(Path dir, Map<String, String> settings, List<String> jvmFlags) throws Exception {
    this.broker = KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("broker")));
    int partitions = Integer.parseInt(settings.getOrDefault("PREFIXLOG_PARTITIONS", "6"));
    createRawTopic(topics.requestsRaw().name(), partitions);
    Map<String, String> all = new LinkedHashMap<>();
    all.put("PREFIXLOG_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    all.put("PREFIXLOG_TOPIC_PREFIX", NAME + ".");
    all.put("PREFIXLOG_APPLICATION_ID", NAME);
    all.put("PREFIXLOG_STATE_DIR", dir.resolve("state").toString());
    all.put("PREFIXLOG_STREAM_THREADS", "1");
    all.put("PREFIXLOG_PARTITIONS", Integer.toString(partitions));
    all.put("PREFIXLOG_KV_INDEX_ENABLED", "false");
    all.put("PREFIXLOG_SESSION_SECRET", AgentEvents.SECRET);
    all.put("PREFIXLOG_KAFKA_CLIENT_ID", CLIENT_ID);
    this.metricsPort = Ports.free("127.0.0.1");
    all.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));
    all.putAll(settings);
    Properties properties = new Properties();
    properties.putAll(all);
    Path config = dir.resolve("stream-app.properties");
    try (var writer = Files.newBufferedWriter(config)) {
      properties.store(writer, "the stream app of AgentTrafficBenchmark");
    }
    this.app =
        ChildProcess.builder(StreamApp.class.getName())
            .args(List.of("--config", config.toString()))
            .jvmFlags(jvmFlags)
            .logFile(dir.resolve("stream-app.log"))
            .start();
  }

  /**
   * Produces {@code events} to the app's raw topic and waits until it has taken every one in and
   * committed its records; then reads back what the round wrote.
   */
  Result round(List<AgentEvents.Event> events) throws Exception {
    double target = turnsSoFar + events.size();
    AppThreadCpu threads = new AppThreadCpu(app.pid(), STREAM_THREAD, STALL);
    produce(topics.requestsRaw().name(), events);
    long firstNanos = 0;
    double firstBytes = 0;
    long lastNanos = 0;
    double lastBytes = 0;
    AppThreadCpu.Sample cpuAtFirst = null;
    AppThreadCpu.Sample cpuAtLast = null;
    long lastChange = System.nanoTime();
    double previousTurns = -1;
    while (true) {
      if (!app.isAlive()) {
        throw new IllegalStateException("the stream app exited; log:\n" + app.logTail(60));
      }
      double[] progress = poll(metricsPort);
      long now = System.nanoTime();
      if (progress != null && progress[0] > turnsSoFar && firstNanos == 0) {
        firstNanos = now;
        firstBytes = progress[1];
        cpuAtFirst = threads.sample();
      }
      if (progress != null && progress[0] != previousTurns) {
        previousTurns = progress[0];
        lastChange = now;
        lastNanos = now;
        lastBytes = progress[1];
        cpuAtLast = threads.sample();
      }
      if (progress != null && progress[0] >= target) {
        break;
      }
      if (now - lastChange > STALL.toNanos()) {
        throw new IllegalStateException(
            "no progress for "
                + STALL
                + " at "
                + previousTurns
                + " turns of "
                + target
                + "; its counters:\n"
                + counters(metricsPort)
                + "\nits log:\n"
                + app.logTail(40)
                + "\nits threads:\n"
                + threadDump(app.pid()));
      }
      Thread.sleep(50);
    }
    turnsSoFar = target;
    boolean sameThreads = threads.sameStreamThreads();
    // Read back while the app runs: it commits a turn's records within its commit interval.
    RebuildReport rebuild;
    try {
      rebuild = rebuild(topics.sessionDeltas().name(), events.size());
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          e.getMessage()
              + "; the app's counters:\n"
              + counters(metricsPort)
              + "\nits group's lag:\n"
              + lag(NAME)
              + "\nits log:\n"
              + app.logTail(60),
          e);
    }
    long deltaBytes = broker.topicLogBytes(topics.sessionDeltas().name());
    long lookupBytes = broker.topicLogBytes(topics.chunkLookups().name());
    double seconds = (lastNanos - firstNanos) / 1e9;
    double megabytes = (lastBytes - firstBytes) / 1e6;
    AppThreadCpu.Sample cpu = cpuAtLast.minus(cpuAtFirst);
    double threadSeconds = cpu.stream() / 1e9;
    Result result =
        new Result(
            events.size(),
            seconds > 0 ? megabytes / seconds : Double.NaN,
            threadSeconds > 0 && sameThreads ? megabytes / threadSeconds : Double.NaN,
            cpu.jit() / 1e9,
            megabytes > 0 ? cpu.gc() / 1e6 / megabytes : Double.NaN,
            peakRssMiB(app.pid()),
            deltaBytes - deltaBytesSoFar,
            lookupBytes - lookupBytesSoFar,
            rebuild);
    deltaBytesSoFar = deltaBytes;
    lookupBytesSoFar = lookupBytes;
    return result;
  }

  private void createRawTopic(String topic, int partitions) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      NewTopic raw =
          new NewTopic(topic, partitions, (short) 1)
              .configs(
                  Map.of(
                      "max.message.bytes", Long.toString(RecordLimits.maxRecordBytes(16L << 20))));
      admin.createTopics(List.of(raw)).all().get();
    }
  }

  /** The events as the capture proxy produces them (lz4, 1 MiB batches, idempotent). */
  private long produce(String topic, List<AgentEvents.Event> events) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, (int) RecordLimits.maxRecordBytes(16L << 20));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L << 20);
    long bytes = 0;
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (AgentEvents.Event event : events) {
        producer.send(
            new ProducerRecord<>(topic, null, event.timestamp(), event.key(), event.value()));
        bytes += event.bodyLen();
      }
      producer.flush();
    }
    return bytes;
  }

  /** {turns, body bytes} from the app's metrics endpoint, or null before it answers. */
  private double[] poll(int port) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      double turns = 0;
      double bytes = 0;
      for (String line : response.body().split("\n")) {
        Matcher m = METRIC.matcher(line);
        if (m.matches()) {
          double value = Double.parseDouble(m.group(3));
          if (m.group(1).equals("prefixlog_turns_total")) {
            turns += value;
          } else {
            bytes += value;
          }
        }
      }
      return new double[] {turns, bytes};
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Per input partition of the group: committed offset and end offset. */
  private String lag(String group) {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
      committed
          .keySet()
          .forEach(tp -> latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()));
      var ends = admin.listOffsets(latest).all().get();
      StringBuilder out = new StringBuilder();
      committed.forEach(
          (tp, offset) ->
              out.append(tp)
                  .append(": committed ")
                  .append(offset == null ? "none" : offset.offset())
                  .append(", end ")
                  .append(ends.get(tp).offset())
                  .append('\n'));
      return out.toString();
    } catch (Exception e) {
      return "(no lag: " + e + ")";
    }
  }

  /** The app's threads as {@code jcmd Thread.print} shows them, for a stall's report. */
  private static String threadDump(long pid) {
    try {
      Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "Thread.print").start();
      String dump =
          new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      jcmd.waitFor();
      return dump;
    } catch (IOException e) {
      return "(no thread dump: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  /** The app's prefixlog counters that are not zero, for a report of what went wrong. */
  private String counters(int port) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      StringBuilder out = new StringBuilder();
      for (String line : response.body().split("\n")) {
        if (line.startsWith("prefixlog_") && !line.endsWith(" 0.0")) {
          out.append(line).append('\n');
        }
      }
      return out.toString();
    } catch (IOException e) {
      return "(none: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  private static long peakRssMiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the stream app's memory", e);
    }
    return -1;
  }

  /**
   * Every turn of the round rebuilt from the deltas topic alone, read committed from where the last
   * round's reading stopped, once {@code expected} records are in (or a minute has passed: then
   * fewer are, and that is an error). A round's sessions are its own, so its chains start in it.
   */
  private RebuildReport rebuild(String topic, long expected) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 20);
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    long read = 0;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = TopicScan.assignAll(consumer, topic);
      for (TopicPartition partition : partitions) {
        consumer.seek(partition, deltasReadTo.getOrDefault(partition, 0L));
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (read < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          rebuilder.addTopicRecord(
              r.key(), r.value(), r.topic() + "/" + r.partition() + "@" + r.offset());
          read++;
        }
      }
      for (TopicPartition partition : partitions) {
        deltasReadTo.put(partition, consumer.position(partition));
      }
    }
    if (read != expected) {
      throw new IllegalStateException("read " + read + " delta records, expected " + expected);
    }
    return rebuilder.run(RebuildListener.NONE);
  }

  @Override
  public void close() {
    try {
      app.close();
    } finally {
      broker.close();
    }
  }
}
