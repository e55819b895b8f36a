package io.prefixlog.benchmarks.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.benchmarks.streams.SyntheticSessions.Event;
import io.prefixlog.benchmarks.streams.SyntheticSessions.Workload;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.streams.topology.PrefixlogTopology;
import io.prefixlog.tools.topic.TopicScan;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * How long the stream app takes to come back with a lost state directory (a replaced disk, a new
 * instance without standbys): one run of the real app (through {@code StreamApp}, EOS v2, one
 * thread) over {@code --sessions} agent sessions of about {@code --turns} turns each, then {@code
 * --rounds} restarts of the same application with its state directory deleted. Each restart is
 * timed from the first store's restore start (Kafka Streams' restore listener; the wait before it,
 * for the group to give the restarted member its tasks, is printed apart: after the first run it is
 * the old member's session timeout) to the end of the last store's restore, to {@code RUNNING}, and
 * to the first new delta out (a probe event written before the restart: restore, the idle index's
 * rebuild and one record's processing). Printed with the changelog topics' sizes and the records
 * restored per store, which is what the delta-encoded bases store ({@code BaseLog}) shrinks.
 */
public final class RestoreBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "RestoreBenchmark",
          "Time to restore the stream app's state of N sessions into an empty state directory,"
              + " from its changelogs, with the bytes and records restored per store.",
          List.of(
              Option.value("sessions", "N", "100000", "Agent sessions in the state."),
              Option.value(
                  "turns",
                  "T",
                  "2",
                  "Mean events per session slot: about N × T / (1 − e^−T) events."),
              Option.value("rounds", "R", "3", "Restores measured (median)."),
              Option.value("seed", "S", "20261125", "Workload seed."),
              Corpora.OPTION));

  private static final Duration RESTORE_TIMEOUT = Duration.ofMinutes(15);

  private record Settings(int sessions, int turns, int rounds, long seed, Path corpora) {
    static Settings of(CommandLine line) throws UsageException {
      return new Settings(
          (int) Benchmark.atMost("sessions", line.longValue("sessions", 100_000, 1), 10_000_000),
          (int) Benchmark.atMost("turns", line.longValue("turns", 2, 1), 30),
          (int) Benchmark.atMost("rounds", line.longValue("rounds", 3, 1), 20),
          line.longValue("seed", 20261125L, 0),
          Corpora.of(line));
    }
  }

  /** One measured restart. */
  private record Restore(
      double joinSeconds,
      double restoredSeconds,
      double runningSeconds,
      double firstDeltaSeconds,
      Map<String, Long> recordsByStore) {}

  private final Settings settings;
  private final PrintStream out;
  private final List<Restore> restores = new ArrayList<>();
  private Map<String, Long> changelogBytes = Map.of();

  private RestoreBenchmark(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, s -> new RestoreBenchmark(s, System.out).run());
  }

  private int run() throws Exception {
    out.println(BENCHMARK.title());
    Machine.header(out);
    // Each event goes to one of `live` session slots at random, and a slot's first event starts a
    // session: `live` slots given T events each on average start live × (1 − e^−T) sessions
    // (Poisson), so live is sized for N of them.
    int live = (int) Math.ceil(settings.sessions() / (1 - Math.exp(-(double) settings.turns())));
    long events = Math.round((double) live * settings.turns());
    if (events > Integer.MAX_VALUE) {
      throw new UsageException("--sessions × --turns must stay below 2^31");
    }
    long buildStart = System.nanoTime();
    Workload workload =
        SyntheticSessions.build(settings.corpora(), (int) events, live, settings.seed());
    out.printf(
        Locale.ROOT,
        "workload: %,d events of %,d sessions, mean body %,.0f B, raw input %,.1f MB, built in"
            + " %.1f s%n",
        workload.events().size(),
        workload.sessions(),
        workload.meanBodyBytes(),
        (workload.valueBytes() + workload.keyBytes()) / 1e6,
        (System.nanoTime() - buildStart) / 1e9);
    Path tmp = Files.createTempDirectory("prefixlog-restore-bench");
    try (KafkaBroker broker =
            KafkaBroker.start(KafkaBroker.Options.defaults(tmp.resolve("broker")));
        Admin admin =
            Admin.create(StreamThroughputBenchmark.adminConfig(broker.bootstrapServers()))) {
      ThroughputRun.Context context =
          new ThroughputRun.Context(
              admin,
              broker.bootstrapServers(),
              new CpuMeter(broker.pid()),
              StreamThroughputBenchmark.TOPIC_PREFIX,
              StreamThroughputBenchmark.PARTITIONS,
              tmp.resolve("state"),
              workload.events().size(),
              Map.of());
      StreamAppConfig setup = ThroughputRun.config(context, "restore-setup", Map.of());
      TopicCreator.createMissing(admin, setup, Duration.ofSeconds(60));
      StreamThroughputBenchmark.preload(broker.bootstrapServers(), setup, workload, admin, out);
      ThroughputRun.Result fill =
          new ThroughputRun(context)
              .run(
                  Variant.PREFIXLOG,
                  "fill",
                  new ThroughputRun.Observer() {
                    @Override
                    public void beforeCleanup(StreamAppConfig config) throws InterruptedException {
                      changelogBytes = topicBytes(admin, config.applicationId() + "-");
                      for (int r = 0; r < settings.rounds(); r++) {
                        restores.add(restore(config, broker.bootstrapServers(), r));
                        printRestore(r, restores.get(r));
                      }
                    }
                  });
      if (!fill.ok()) {
        out.println("FAILED: the run that builds the state did not complete: " + fill.failure());
        return 1;
      }
      out.printf(
          Locale.ROOT,
          "state built by one run: %,d events in %.1f s (%,.0f records/s)%n",
          fill.records(),
          fill.wallNanos() / 1e9,
          fill.records() / (fill.wallNanos() / 1e9));
      printSummary(workload);
    } finally {
      ScratchDirs.deleteRecursively(tmp);
    }
    out.println();
    Machine.footer(out);
    return restores.size() == settings.rounds() ? 0 : 1;
  }

  /** Deletes the state directory, writes a probe event, restarts and times the way back. */
  private Restore restore(StreamAppConfig config, String bootstrap, int round)
      throws InterruptedException {
    ScratchDirs.deleteRecursively(config.stateDir());
    String deltas = config.topics().sessionDeltas().name();
    try (KafkaConsumer<byte[], byte[]> probeReader = deltasReader(bootstrap, deltas)) {
      writeProbe(bootstrap, config.topics().requestsRaw().name(), round);
      StreamAppMetrics metrics = new StreamAppMetrics(new SimpleMeterRegistry());
      Properties properties = StreamApp.streamsProperties(config, metrics);
      Counter counter = new Counter();
      long start = System.nanoTime();
      long running = -1;
      long firstDelta = -1;
      KafkaStreams streams = new KafkaStreams(PrefixlogTopology.build(config, metrics), properties);
      try {
        streams.setGlobalStateRestoreListener(counter);
        streams.start();
        long deadline = start + RESTORE_TIMEOUT.toNanos();
        // Stores restore one after another (an empty changelog starts and ends at once), so the
        // restore is over when the probe's delta is out, the client is RUNNING, and every restore
        // that started has ended.
        while (firstDelta < 0 || running < 0 || !counter.done()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "no way back within " + RESTORE_TIMEOUT + ": state " + streams.state());
          }
          if (streams.state() == KafkaStreams.State.ERROR
              || streams.state() == KafkaStreams.State.NOT_RUNNING) {
            throw new IllegalStateException("the restarted app stopped: " + streams.state());
          }
          if (running < 0 && streams.state() == KafkaStreams.State.RUNNING) {
            running = System.nanoTime();
          }
          if (firstDelta < 0 && !probeReader.poll(Duration.ofMillis(50)).isEmpty()) {
            firstDelta = System.nanoTime();
          }
        }
      } finally {
        // Leaving the group lets the next restart have its tasks at once, not after the session
        // timeout of a member that is gone.
        streams.close(
            CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofMinutes(1)));
      }
      long restored = counter.lastEnd.get();
      long from = counter.firstStart.get();
      return new Restore(
          (from - start) / 1e9,
          (restored - from) / 1e9,
          (running - from) / 1e9,
          (firstDelta - from) / 1e9,
          new TreeMap<>(counter.records));
    }
  }

  /** A read_committed consumer of the deltas topic, positioned at its end. */
  private static KafkaConsumer<byte[], byte[]> deltasReader(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> partitions = TopicScan.assignAll(consumer, topic);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position);
    return consumer;
  }

  /** One more event, of a session the state has never seen: its delta marks the way back. */
  private void writeProbe(String bootstrap, String topic, int round) throws InterruptedException {
    Event probe =
        SyntheticSessions.build(settings.corpora(), 1, 1, settings.seed() + 1 + round)
            .events()
            .get(0);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            StreamThroughputBenchmark.producerConfig(bootstrap),
            new StringSerializer(),
            new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(topic, probe.key(), probe.value()))
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot write the probe event: " + e, e);
    }
  }

  /** Bytes on the broker's disk per topic whose name starts with {@code prefix}. */
  private static Map<String, Long> topicBytes(Admin admin, String prefix)
      throws InterruptedException {
    Map<String, Long> bytes = new TreeMap<>();
    try {
      for (Map<String, LogDirDescription> broker :
          admin.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS).values()) {
        for (LogDirDescription dir : broker.values()) {
          for (Map.Entry<TopicPartition, ReplicaInfo> e : dir.replicaInfos().entrySet()) {
            if (e.getKey().topic().startsWith(prefix)) {
              bytes.merge(e.getKey().topic(), e.getValue().size(), Long::sum);
            }
          }
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot describe the broker's log directories: " + e, e);
    }
    return bytes;
  }

  private void printRestore(int round, Restore r) {
    out.printf(
        Locale.ROOT,
        "restore %d: tasks assigned after %.2f s; from the first restore start: changelogs"
            + " restored in %.2f s, RUNNING at %.2f s, first new delta at %.2f s; records restored"
            + " %s%n",
        round + 1,
        r.joinSeconds(),
        r.restoredSeconds(),
        r.runningSeconds(),
        r.firstDeltaSeconds(),
        r.recordsByStore());
  }

  private void printSummary(Workload workload) {
    out.println();
    out.printf(
        Locale.ROOT,
        "Restore of the state of %,d sessions (%,d events), median of %d restarts with an empty"
            + " state directory, from the first store's restore start:%n",
        workload.sessions(),
        workload.events().size(),
        restores.size());
    // Per session: the whole restore over every session held. The probe's delta comes out as soon
    // as its own task is restored, so it says nothing per session.
    double restored = Medians.of(restores.stream().mapToDouble(Restore::restoredSeconds).toArray());
    out.printf(
        Locale.ROOT,
        "  changelogs restored %.2f s (%.1f µs per session of state); RUNNING %.2f s; first new"
            + " delta %.2f s%n",
        restored,
        restored * 1e6 / workload.sessions(),
        Medians.of(restores.stream().mapToDouble(Restore::runningSeconds).toArray()),
        Medians.of(restores.stream().mapToDouble(Restore::firstDeltaSeconds).toArray()));
    out.println(
        "  internal topics on the broker's disk after the run, before any restore (changelogs are"
            + " what a restore reads):");
    changelogBytes.forEach(
        (topic, size) ->
            out.printf(
                Locale.ROOT,
                "    %-60s %,12d B (%,.0f B per session)%n",
                topic,
                size,
                (double) size / workload.sessions()));
  }

  /** Counts what the restore listener sees, per store, and when the last restore ended. */
  private static final class Counter implements StateRestoreListener {
    final Map<String, Long> records = new ConcurrentHashMap<>();
    final AtomicLong started = new AtomicLong();
    final AtomicLong ended = new AtomicLong();
    final AtomicLong firstStart = new AtomicLong();
    final AtomicLong lastEnd = new AtomicLong();

    @Override
    public void onRestoreStart(
        TopicPartition partition, String store, long startingOffset, long endingOffset) {
      firstStart.compareAndSet(0, System.nanoTime());
      started.incrementAndGet();
    }

    @Override
    public void onBatchRestored(
        TopicPartition partition, String store, long batchEndOffset, long numRestored) {
      records.merge(store, numRestored, Long::sum);
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
      lastEnd.set(System.nanoTime());
      ended.incrementAndGet();
    }

    /** Every restore that started has ended (and at least one started). */
    boolean done() {
      long s = started.get();
      return s > 0 && ended.get() == s;
    }
  }
}
