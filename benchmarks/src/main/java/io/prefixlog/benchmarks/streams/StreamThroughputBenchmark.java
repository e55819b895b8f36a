package io.prefixlog.benchmarks.streams;

import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.benchmarks.streams.SyntheticSessions.Event;
import io.prefixlog.benchmarks.streams.SyntheticSessions.Workload;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.tools.corpus.AgentShape;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The stream app's target (docs/design.md#performance-targets): sustained records/s of one stream
 * thread with 20 KB bodies and exactly-once v2, next to a pass-through topology in the same run.
 *
 * <p>One child-process KRaft broker on a fresh data directory; a 2-partition raw topic pre-loaded
 * with N synthetic agent-session events ({@link SyntheticSessions}); then rounds of runs, each
 * variant once per round in a rotating order, every run with a fresh application id and state
 * directory over the same input ({@link ThroughputRun} defines the rate). Variants: A prefixlog's
 * topology ({@code StreamApp}), B pass-through, C pass-through + one logged store, L B behind
 * prefixlog's routing step, and on request the ideas D to K ({@link Variant}). Round 1 is a warm-up
 * (JIT, page cache) and is printed but not counted. Then the processor's work is timed stage by
 * stage in this JVM ({@link StageProfile}) and one more run of each variant is recorded with JFR
 * ({@link JfrProfile}).
 *
 * <p>Usage: {@code StreamThroughputBenchmark [--records N] [--rounds R] [--warmup-rounds W]
 * [--variants A,B,C,…] [--concurrent-sessions K] [--seed S] [--corpora DIR] [--kafka KEY=VALUE]…
 * [--stage-passes P] [--no-stage-profile] [--no-profile] [--sampler-ms MS] [--jfr] [--top-frames N]
 * [--out DIR]}.
 */
public final class StreamThroughputBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "StreamThroughputBenchmark",
          "Records/s of one stream thread, EOS v2, ~20 KB agent-like bodies: prefixlog's topology"
              + " against reference topologies (pass-through, a store), interleaved rounds on one"
              + " broker, with changelog bytes, CPU and a stage profile.",
          List.of(
              Option.value("records", "N", "20000", "Records per measured run (at least 100)."),
              Option.value("rounds", "R", "3", "Measured rounds of every variant."),
              Option.value("warmup-rounds", "W", "1", "Unmeasured rounds first."),
              Option.value(
                  "variants",
                  "A,B,...",
                  "A,B,C,L",
                  "Variants measured, by code (A prefixlog, B pass-through, C pass+store, L routed"
                      + " pass-through, ...)."),
              Option.value("concurrent-sessions", "K", "256", "Sessions interleaved in the input."),
              Option.value("seed", "S", "20261121", "Input seed."),
              Corpora.OPTION,
              Option.value(
                      "kafka", "KEY=VALUE", "none", "A Kafka client setting for every variant.")
                  .repeatable(),
              Option.value("stage-passes", "P", "3", "Passes of the stage profile."),
              Option.flag("no-stage-profile", "Skip the stage profile."),
              Option.value(
                  "agent-sessions",
                  "N",
                  "0",
                  "Long coding-agent sessions (AgentSessions, 0.3-0.5 MB bodies) instead of the"
                      + " ~20 KB ones: N sessions of --agent-turns turns; --records is then N x"
                      + " turns."),
              Option.value("agent-turns", "T", "70", "Turns of each agent session."),
              Option.flag(
                  "json-events",
                  "Raw events as version 1 JSON (kcat, middlewares), not framed as the capture"
                      + " proxy writes them."),
              Option.flag("no-profile", "Skip the stack sampler."),
              Option.value("sampler-ms", "MS", "20", "Stack sampler period."),
              Option.flag("jfr", "Also record a JFR profile."),
              Option.value("top-frames", "N", "12", "Frames listed per profile."),
              Option.value("out", "DIR", "none", "Write the tables and profiles there.")));

  static final String TOPIC_PREFIX = "bench.";
  static final int PARTITIONS = 2;

  private final Options options;
  private final PrintStream out;

  private StreamThroughputBenchmark(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Runs the benchmark; exits 1 when a measured run failed its output check. */
  public static void main(String[] args) throws Exception {
    BENCHMARK.main(
        args, Options::of, options -> new StreamThroughputBenchmark(options, System.out).run());
  }

  private int run() throws InterruptedException {
    out.println(
        "StreamThroughputBenchmark: records/s of one stream thread, EOS v2, ~20 KB bodies"
            + " (docs/design.md#performance-targets)");
    Machine.header(out);

    long buildStart = System.nanoTime();
    Workload workload =
        options.agentSessions() > 0
            ? Workload.agent(
                options.corpora(),
                AgentShape.DEFAULT
                    .withSize(options.agentSessions(), options.agentTurns())
                    .withSeed(options.seed()))
            : SyntheticSessions.build(
                options.corpora(), options.records(), options.concurrentSessions(), options.seed());
    printWorkload(workload, System.nanoTime() - buildStart);

    Path tmp;
    try {
      tmp = Files.createTempDirectory("prefixlog-stream-bench");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
    Path outDir = options.out() != null ? options.out() : tmp.resolve("profiles");
    List<ThroughputRun.Result> results = new ArrayList<>();
    long brokerStart = System.nanoTime();
    try (KafkaBroker broker =
            KafkaBroker.start(KafkaBroker.Options.defaults(tmp.resolve("broker")));
        Admin admin = Admin.create(adminConfig(broker.bootstrapServers()))) {
      out.printf(
          Locale.ROOT,
          "broker: child-process KRaft (prefixlog-embedded defaults: 512 MiB heap, SerialGC,"
              + " C1 only), pid %d, ready in %.1f s, data in %s%n",
          broker.pid(),
          (System.nanoTime() - brokerStart) / 1e9,
          broker.dataDir());
      ThroughputRun.Context context =
          new ThroughputRun.Context(
              admin,
              broker.bootstrapServers(),
              new CpuMeter(broker.pid()),
              TOPIC_PREFIX,
              PARTITIONS,
              tmp.resolve("state"),
              workload.events().size(),
              options.settings());
      StreamAppConfig setup = ThroughputRun.config(context, "bench-setup", Map.of());
      printSettings(setup);
      for (Variant v : options.variants()) {
        out.printf(
            Locale.ROOT,
            "variant %s %s: %s topology%s%n",
            v.code(),
            v.label(),
            v.topology().name().toLowerCase(Locale.ROOT).replace('_', '-'),
            v.settings().isEmpty() ? "" : ", " + v.settings());
      }
      TopicCreator.createMissing(admin, setup, Duration.ofSeconds(60));
      // Framed as the capture proxy writes them, unless asked for version 1 JSON.
      preload(
          broker.bootstrapServers(),
          setup,
          options.jsonEvents() ? workload : workload.framed(),
          admin,
          out);

      ThroughputRun runner = new ThroughputRun(context);
      int totalRounds = options.warmupRounds() + options.rounds();
      out.println();
      out.println(
          "Runs (round w* = warm-up, not counted). steady = committed records/s from the first"
              + " to the last progress poll; wall = N / (start() to all N committed).");
      TextTable runs = runTable();
      List<Object[]> pending = new ArrayList<>();
      for (int round = 0; round < totalRounds; round++) {
        boolean warmup = round < options.warmupRounds();
        String label = warmup ? "w" + (round + 1) : "r" + (round - options.warmupRounds() + 1);
        List<Variant> order = rotate(options.variants(), round);
        for (Variant variant : order) {
          ThroughputRun.Result r = runner.run(variant, label);
          if (!warmup) {
            results.add(r);
          }
          Object[] row = runRow(r);
          pending.add(row);
          printProgress(r);
        }
      }
      pending.forEach(runs::row);
      out.println();
      runs.print(out);

      printSummary(results, workload);

      if (options.stageProfile()) {
        printStageProfile(workload, setup, tmp);
      }
      if (options.profile()) {
        Files.createDirectories(outDir);
        printProfiles(runner, outDir, results);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (options.out() == null && options.jfr()) {
        ScratchDirs.deleteRecursively(tmp.resolve("broker"));
        ScratchDirs.deleteRecursively(tmp.resolve("state"));
      } else {
        ScratchDirs.deleteRecursively(tmp);
      }
    }
    out.println();
    Machine.footer(out);
    long failed = results.stream().filter(r -> !r.ok()).count();
    if (failed > 0) {
      out.println("FAILED: " + failed + " measured run(s) did not complete or miscounted outputs");
      return 1;
    }
    return 0;
  }

  private void printWorkload(Workload w, long buildNanos) {
    int n = w.events().size();
    out.printf(
        Locale.ROOT,
        "workload: N = %,d events, %,d sessions (%d-%d turns, %d live at once, seed %d), built in"
            + " %.1f s from %s/agentic%n",
        n,
        w.sessions(),
        SyntheticSessions.MIN_TURNS,
        SyntheticSessions.MAX_TURNS,
        w.concurrent(),
        w.seed(),
        buildNanos / 1e9,
        options.corpora());
    out.printf(
        Locale.ROOT,
        "  body: mean %,.0f B (p10 %,d, p50 %,d, p90 %,d, max %,d); raw event JSON: mean %,.0f B;"
            + " key %d B; raw input %,.1f MB%n",
        w.meanBodyBytes(),
        w.bodyPercentile(10),
        w.bodyPercentile(50),
        w.bodyPercentile(90),
        w.bodyPercentile(100),
        w.meanValueBytes(),
        w.events().get(0).key().length(),
        (w.valueBytes() + w.keyBytes()) / 1e6);
  }

  private void printSettings(StreamAppConfig setup) {
    Properties p = StreamApp.streamsProperties(setup);
    Map<String, Object> shown = new TreeMap<>();
    p.forEach((k, v) -> shown.put(String.valueOf(k), v));
    shown.remove("bootstrap.servers");
    shown.remove("application.id");
    shown.remove("state.dir");
    out.println(
        "streams settings (StreamApp.streamsProperties, the same for every variant): " + shown);
    out.printf(
        Locale.ROOT,
        "topics: %d partitions, RF 1, prefix %s; raw producer as the replay tool's (lz4, 64 KiB"
            + " batches, linger 5 ms, idempotent)%n",
        PARTITIONS,
        TOPIC_PREFIX);
  }

  /** Produces every event to the raw topic and checks that the topic holds exactly N records. */
  /** Writes the workload into the raw topic, before any measured app starts; checks the count. */
  static void preload(
      String bootstrap, StreamAppConfig setup, Workload w, Admin admin, PrintStream out)
      throws InterruptedException {
    String topic = setup.topics().requestsRaw().name();
    long start = System.nanoTime();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            producerConfig(bootstrap), new StringSerializer(), new ByteArraySerializer())) {
      for (Event e : w.events()) {
        producer.send(
            new ProducerRecord<>(topic, e.key(), e.value()),
            (metadata, ex) -> {
              if (ex != null) {
                failure.compareAndSet(null, ex);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("pre-loading " + topic + " failed: " + failure.get());
    }
    long records = 0;
    Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    long[] perPartition = new long[PARTITIONS];
    try {
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets =
          admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
      for (var e : offsets.entrySet()) {
        records += e.getValue().offset();
        perPartition[e.getKey().partition()] = e.getValue().offset();
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the end offsets of " + topic + ": " + e, e);
    }
    if (records != w.events().size()) {
      throw new IllegalStateException(
          topic + " holds " + records + " records, expected " + w.events().size());
    }
    out.printf(
        Locale.ROOT,
        "pre-loaded %s: %,d records (partitions %s) in %.1f s, before any measured app starts%n",
        topic,
        records,
        Arrays.toString(perPartition),
        (System.nanoTime() - start) / 1e9);
  }

  static Properties producerConfig(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-preload");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    int maxRequest = 2 * 16 * 1024 * 1024 + 1024 * 1024;
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(maxRequest));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(2L * maxRequest));
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(64 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return p;
  }

  static Properties adminConfig(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "bench-admin");
    return p;
  }

  private static List<Variant> rotate(List<Variant> variants, int by) {
    List<Variant> order = new ArrayList<>(variants);
    java.util.Collections.rotate(order, -(by % variants.size()));
    return order;
  }

  private void printProgress(ThroughputRun.Result r) {
    out.printf(
        Locale.ROOT,
        "… %s %s: %s%n",
        r.round(),
        r.variant().label(),
        r.ok()
            ? String.format(
                Locale.ROOT, "%,.0f rec/s steady, %,.0f rec/s wall", r.steadyRate(), r.wallRate())
            : "FAILED: " + r.failure());
    out.flush();
  }

  private static TextTable runTable() {
    return new TextTable(
        "round",
        "variant",
        "steady rec/s",
        "wall rec/s",
        "startup s",
        "steady s",
        "stream thr busy",
        "stream thr µs/rec",
        "app JVM µs/rec",
        "broker µs/rec",
        "machine busy",
        "outputs");
  }

  private static Object[] runRow(ThroughputRun.Result r) {
    CpuMeter.Window win = r.window();
    double recs = Math.max(1, r.steadyRecords());
    return new Object[] {
      r.round(),
      r.variant().code() + " " + r.variant().label(),
      r.ok() ? f0(r.steadyRate()) : "FAILED",
      r.ok() ? f0(r.wallRate()) : "-",
      f1(r.startupNanos() / 1e9),
      f1(win.wallNanos() / 1e9),
      pct(win.streamThreadNanos(), win.wallNanos()),
      perRecord(win.streamThreadNanos(), recs),
      perRecord(win.processNanos(), recs),
      perRecord(win.brokerNanos(), recs),
      win.machineBusyFraction() < 0 ? "-" : f0(100 * win.machineBusyFraction()) + " %",
      r.ok() ? r.outputRecords() + " ok" : r.outputRecords() + "/" + r.deadLetters() + " dlq"
    };
  }

  private void printSummary(List<ThroughputRun.Result> results, Workload w) {
    double rawBytesPerRecord = (double) (w.valueBytes() + w.keyBytes()) / w.events().size();
    Map<Variant, List<ThroughputRun.Result>> byVariant = new EnumMap<>(Variant.class);
    for (ThroughputRun.Result r : results) {
      if (r.ok()) {
        byVariant.computeIfAbsent(r.variant(), v -> new ArrayList<>()).add(r);
      }
    }
    out.println();
    out.printf(
        Locale.ROOT,
        "Summary over %d measured round(s): median [min-max]. MB/s = raw input (event JSON +"
            + " key, %,.0f B/record) consumed; out = output records' key+value bytes"
            + " (uncompressed, read back); sent = batch bytes the app's producer sent (compressed),"
            + " per input record; batch B and compression = its batch-size-avg and"
            + " compression-rate-avg (compressed/uncompressed).%n",
        options.rounds(),
        rawBytesPerRecord);
    TextTable table =
        new TextTable(
            "variant",
            "runs",
            "steady rec/s",
            "MB/s raw in",
            "wall rec/s",
            "out B/rec",
            "out sent B/rec",
            "changelog sent B/rec",
            "changelog / out sent",
            "changelog rec/rec",
            "repartition sent B/rec",
            "batch B",
            "compression");
    for (Map.Entry<Variant, List<ThroughputRun.Result>> e : byVariant.entrySet()) {
      List<ThroughputRun.Result> rs = e.getValue();
      table.row(
          e.getKey().code() + " " + e.getKey().label(),
          rs.size(),
          stat(rs, ThroughputRun.Result::steadyRate, 0),
          stat(rs, r -> r.steadyRate() * rawBytesPerRecord / 1e6, 1),
          stat(rs, ThroughputRun.Result::wallRate, 0),
          f0(median(rs, r -> (double) r.outputBytes() / r.records())),
          f0(median(rs, r -> (double) r.outputSentBytes() / r.records())),
          f0(median(rs, r -> (double) r.changelogSentBytes() / r.records())),
          f2(median(rs, r -> (double) r.changelogSentBytes() / Math.max(1, r.outputSentBytes()))),
          f2(median(rs, r -> (double) r.changelogRecords() / r.records())),
          f0(median(rs, r -> (double) r.repartitionSentBytes() / r.records())),
          f0(median(rs, ThroughputRun.Result::batchBytes)),
          f2(median(rs, ThroughputRun.Result::compressionRatio)));
    }
    table.print(out);
    printChangelogsByStore(byVariant);

    out.println();
    out.println(
        "CPU per record in the steady window, µs (medians over the measured rounds). JVM+native ="
            + " app JVM minus its Java threads, split by OS thread name into GC, JIT and RocksDB"
            + " background (the rest is the VM thread, zstd/lz4 have no threads). cores = (app JVM"
            + " + broker CPU) / wall time; 1-core ceiling = 1e6 / stream thread µs/rec, the rate if"
            + " the stream thread had a core to itself and never waited.");
    TextTable cpu =
        new TextTable(
            "variant",
            "stream thread",
            "producer I/O",
            "other Java",
            "JVM+native",
            "GC",
            "JIT",
            "RocksDB bg",
            "app JVM",
            "broker",
            "app+broker",
            "cores",
            "machine busy",
            "1-core ceiling rec/s");
    for (Map.Entry<Variant, List<ThroughputRun.Result>> e : byVariant.entrySet()) {
      List<ThroughputRun.Result> rs = e.getValue();
      cpu.row(
          e.getKey().code() + " " + e.getKey().label(),
          f0(median(rs, r -> perRecordMicros(r.window().streamThreadNanos(), r))),
          f0(median(rs, r -> perRecordMicros(r.window().group(CpuMeter.Group.PRODUCER_IO), r))),
          f0(median(rs, r -> perRecordMicros(r.window().group(CpuMeter.Group.OTHER_JAVA), r))),
          f0(median(rs, r -> perRecordMicros(r.window().group(CpuMeter.Group.JVM_AND_NATIVE), r))),
          f0(median(rs, r -> perRecordMicros(r.window().group(CpuMeter.Group.GC), r))),
          f0(median(rs, r -> perRecordMicros(r.window().group(CpuMeter.Group.JIT), r))),
          f0(median(rs, r -> perRecordMicros(r.window().group(CpuMeter.Group.ROCKSDB), r))),
          f0(median(rs, r -> perRecordMicros(r.window().processNanos(), r))),
          f0(median(rs, r -> perRecordMicros(r.window().brokerNanos(), r))),
          f0(
              median(
                  rs,
                  r -> perRecordMicros(r.window().processNanos() + r.window().brokerNanos(), r))),
          f2(
              median(
                  rs,
                  r ->
                      (double) (r.window().processNanos() + r.window().brokerNanos())
                          / r.window().wallNanos())),
          f0(median(rs, r -> 100 * r.window().machineBusyFraction())) + " %",
          f0(median(rs, r -> 1e6 / perRecordMicros(r.window().streamThreadNanos(), r))));
    }
    cpu.print(out);

    out.println();
    out.println(
        "Ratios: per round (the two runs of a round ran minutes apart at most), median [min-max];"
            + " and the ratio of the medians.");
    TextTable ratios = new TextTable("ratio", "per-round median", "range", "of medians", "rounds");
    ratio(ratios, byVariant, Variant.PREFIXLOG, Variant.PASS_THROUGH);
    ratio(ratios, byVariant, Variant.PREFIXLOG, Variant.STORE);
    ratio(ratios, byVariant, Variant.STORE, Variant.PASS_THROUGH);
    ratio(ratios, byVariant, Variant.ROUTED_PASS_THROUGH, Variant.PASS_THROUGH);
    ratio(ratios, byVariant, Variant.PREFIXLOG, Variant.ROUTED_PASS_THROUGH);
    for (Variant idea : Variant.values()) {
      if (idea.ordinal() > Variant.STORE.ordinal() && idea != Variant.ROUTED_PASS_THROUGH) {
        ratio(ratios, byVariant, idea, Variant.PREFIXLOG);
      }
    }
    ratios.print(out);
  }

  /** Each store's share of the changelog bytes, per input record (medians). */
  private void printChangelogsByStore(Map<Variant, List<ThroughputRun.Result>> byVariant) {
    java.util.SortedSet<String> stores = new java.util.TreeSet<>();
    byVariant
        .values()
        .forEach(rs -> rs.forEach(r -> stores.addAll(r.changelogSentByStore().keySet())));
    if (stores.isEmpty()) {
      return;
    }
    out.println();
    out.println("Changelog sent B/rec by store (medians):");
    List<String> header = new ArrayList<>(List.of("variant"));
    header.addAll(stores);
    TextTable table = new TextTable(header.toArray(String[]::new));
    for (Map.Entry<Variant, List<ThroughputRun.Result>> e : byVariant.entrySet()) {
      List<Object> row = new ArrayList<>(List.of(e.getKey().code() + " " + e.getKey().label()));
      for (String store : stores) {
        row.add(
            f0(
                median(
                    e.getValue(),
                    r -> (double) r.changelogSentByStore().getOrDefault(store, 0L) / r.records())));
      }
      table.row(row.toArray());
    }
    table.print(out);
  }

  private static void ratio(
      TextTable table, Map<Variant, List<ThroughputRun.Result>> byVariant, Variant a, Variant b) {
    if (!byVariant.containsKey(a) || !byVariant.containsKey(b)) {
      return;
    }
    List<Double> paired = new ArrayList<>();
    for (ThroughputRun.Result ra : byVariant.get(a)) {
      for (ThroughputRun.Result rb : byVariant.get(b)) {
        if (ra.round().equals(rb.round())) {
          paired.add(ra.steadyRate() / rb.steadyRate());
        }
      }
    }
    if (paired.isEmpty()) {
      return;
    }
    double[] v = paired.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double ofMedians =
        median(byVariant.get(a), ThroughputRun.Result::steadyRate)
            / median(byVariant.get(b), ThroughputRun.Result::steadyRate);
    table.row(
        a.label() + " / " + b.label(),
        f2(Medians.of(v)),
        f2(v[0]) + "-" + f2(v[v.length - 1]),
        f2(ofMedians),
        v.length);
  }

  private void printStageProfile(Workload w, StreamAppConfig setup, Path tmp) {
    out.println();
    out.printf(
        Locale.ROOT,
        "In-process stage profile (no Kafka): the processor's steps over the same %,d events in"
            + " topic order, %d warm-up + %d measured passes, µs per record (median [min-max]).%n",
        w.events().size(),
        1,
        options.stagePasses());
    StageProfile.Result profile =
        new StageProfile(w.events(), setup.encoder(), setup.maxBodyBytes())
            .run(1, options.stagePasses(), tmp.resolve("stage-profile"));
    TextTable table = new TextTable("stage", "µs/record", "range");
    for (StageProfile.Timing t : profile.stages()) {
      table.row(t.stage().label(), f1(t.median()), f1(t.min()) + "-" + f1(t.max()));
    }
    table.print(out);
    double prefixlogOnly = 0;
    for (StageProfile.Timing t : profile.stages()) {
      switch (t.stage()) {
        case VALIDATE, STATE_DECODE, ENCODE, STATE_ENCODE, RECORD_JSON ->
            prefixlogOnly += t.median();
        default -> {
          // parts of the above, ideas, or compression (counted with Kafka's work)
        }
      }
    }
    out.printf(
        Locale.ROOT,
        "  sum of the processor's own CPU work (validate + state codec + encode + record JSON):"
            + " %.0f µs/record; delta records: mean %,.0f B JSON, %d keyframes (%.1f %%)%n",
        prefixlogOnly,
        (double) profile.deltaBytes() / profile.deltaRecords(),
        profile.keyframes(),
        100.0 * profile.keyframes() / profile.deltaRecords());
    out.println();
    out.println(
        "The real topology (PrefixlogTopology.build, StreamApp.streamsProperties) in Kafka Streams'"
            + " TopologyTestDriver: real processors, Serdes and RocksDB stores, no broker; µs per"
            + " record, median of the measured passes (interleaved, after one warm-up pass each):");
    TextTable whole =
        new TextTable(
            "configuration",
            "µs/record",
            "other threads CPU µs/rec",
            "deltas",
            "state on disk at end MB");
    for (ProcessorPass.Timing t : profile.processor()) {
      whole.row(
          t.label(),
          f1(t.micros()),
          f1(t.otherThreadsMicros()),
          t.deltas(),
          f1(t.stateBytes() / 1e6));
    }
    whole.print(out);
    out.printf(
        Locale.ROOT,
        "  the stages' sum above against the real session-delta path (the app's RocksDB):"
            + " %.2f×%n",
        prefixlogOnly / profile.processor().get(0).micros());
  }

  private void printProfiles(ThroughputRun runner, Path outDir, List<ThroughputRun.Result> measured)
      throws InterruptedException {
    out.println();
    out.printf(
        Locale.ROOT,
        "Profile: one more run of each variant. The stream thread's stack is sampled every %d ms"
            + " over the steady window (wall clock: Java, native and waiting alike; each sample is"
            + " a safepoint, which slows the run: its rate is shown against the measured median)"
            + "%s%n",
        options.samplerPeriod().toMillis(),
        options.jfr()
            ? String.format(
                Locale.ROOT,
                "; JFR records execution samples every %d ms (Java only), files in %s",
                JfrProfile.PERIOD.toMillis(),
                outDir)
            : "");
    Map<Variant, StackSampler.Summary> sampled = new EnumMap<>(Variant.class);
    Map<Variant, JfrProfile.Summary> jfr = new EnumMap<>(Variant.class);
    Map<Variant, ThroughputRun.Result> runs = new EnumMap<>(Variant.class);
    for (Variant variant : options.variants()) {
      Path file = outDir.resolve("stream-" + variant.code().toLowerCase(Locale.ROOT) + ".jfr");
      StackSampler sampler = new StackSampler(options.samplerPeriod());
      JfrProfile recording = options.jfr() ? JfrProfile.start(file) : null;
      try {
        ThroughputRun.Result r =
            runner.run(
                variant,
                "profile",
                new ThroughputRun.Observer() {
                  @Override
                  public void steadyStarted(String applicationId, List<Long> streamThreadIds) {
                    sampler.sample(streamThreadIds);
                  }

                  @Override
                  public void steadyEnded() {
                    sampler.pause();
                  }
                });
        printProgress(r);
        if (r.ok() && r.firstProgress() != null) {
          sampled.put(variant, sampler.summary());
          runs.put(variant, r);
          if (recording != null) {
            jfr.put(
                variant, recording.stop(r.applicationId(), r.firstProgress(), r.lastProgress()));
          }
        }
      } finally {
        sampler.close();
        if (recording != null) {
          recording.close();
        }
      }
    }
    if (sampled.isEmpty()) {
      return;
    }
    List<Variant> shown = new ArrayList<>(sampled.keySet());
    String[] header = new String[shown.size() + 1];
    for (int i = 0; i < shown.size(); i++) {
      header[i + 1] = shown.get(i).code() + " " + shown.get(i).label();
    }
    out.println();
    out.println(
        "Stream thread, share of wall time by activity (the first rule that matches any frame of"
            + " the stack); \"w\" = of which waiting (parked, blocked, epoll_wait):");
    header[0] = "activity";
    TextTable activities = new TextTable(header);
    for (StackSampler.Rule rule : StackSampler.ACTIVITIES) {
      Object[] row = new Object[shown.size() + 1];
      row[0] = rule.label();
      for (int i = 0; i < shown.size(); i++) {
        StackSampler.Summary s = sampled.get(shown.get(i));
        long[] c = s.activities().get(rule.label());
        row[i + 1] =
            c[0] == 0
                ? "-"
                : pct(c[0], s.samples()) + (c[1] == 0 ? "" : " (w " + pct(c[1], s.samples()) + ")");
      }
      activities.row(row);
    }
    activities.separator();
    Object[] totals = new Object[shown.size() + 1];
    totals[0] = "samples; waiting; this run's rate vs the measured median";
    for (int i = 0; i < shown.size(); i++) {
      Variant v = shown.get(i);
      StackSampler.Summary s = sampled.get(v);
      List<ThroughputRun.Result> same =
          measured.stream().filter(r -> r.ok() && r.variant() == v).toList();
      double rate = runs.get(v).steadyRate();
      totals[i + 1] =
          s.samples()
              + "; "
              + pct(s.waiting(), s.samples())
              + "; "
              + f0(rate)
              + "/s"
              + (same.isEmpty()
                  ? ""
                  : " = " + f0(100 * rate / median(same, ThroughputRun.Result::steadyRate)) + " %");
    }
    activities.row(totals);
    activities.print(out);

    out.println();
    out.println(
        "Stream thread, running samples by the code at the top of the stack (share of all"
            + " samples):");
    header[0] = "code";
    TextTable code = new TextTable(header);
    for (StackSampler.Rule rule : StackSampler.CODE) {
      Object[] row = new Object[shown.size() + 1];
      row[0] = rule.label();
      for (int i = 0; i < shown.size(); i++) {
        StackSampler.Summary s = sampled.get(shown.get(i));
        long c = s.code().get(rule.label());
        row[i + 1] = c == 0 ? "-" : pct(c, s.samples());
      }
      code.row(row);
    }
    code.print(out);

    for (Variant v : shown) {
      StackSampler.Summary s = sampled.get(v);
      out.println();
      out.printf(
          Locale.ROOT,
          "%s %s: top frames of the running stream thread (stack sampler, %d samples)%n",
          v.code(),
          v.label(),
          s.samples());
      TextTable top = new TextTable("method", "samples", "share");
      s.topFrames().entrySet().stream()
          .limit(options.topFrames())
          .forEach(e -> top.row(e.getKey(), e.getValue(), pct(e.getValue(), s.samples())));
      top.print(out);
      JfrProfile.Summary j = jfr.get(v);
      if (j != null) {
        out.printf(
            Locale.ROOT,
            "%s %s: hottest Java methods (JFR jdk.ExecutionSample, %d samples, %d truncated), %s%n",
            v.code(),
            v.label(),
            j.samples(),
            j.truncated(),
            j.file());
        TextTable hot = new TextTable("method", "samples", "share");
        j.topFrames().entrySet().stream()
            .limit(options.topFrames())
            .forEach(e -> hot.row(e.getKey(), e.getValue(), pct(e.getValue(), j.samples())));
        hot.print(out);
      }
    }
  }

  private static String stat(
      List<ThroughputRun.Result> rs, ToDoubleFunction<ThroughputRun.Result> f, int digits) {
    double[] v = rs.stream().mapToDouble(f).sorted().toArray();
    String fmt = "%,." + digits + "f";
    return String.format(Locale.ROOT, fmt, Medians.of(v))
        + " ["
        + String.format(Locale.ROOT, fmt, v[0])
        + "-"
        + String.format(Locale.ROOT, fmt, v[v.length - 1])
        + "]";
  }

  private static double median(
      List<ThroughputRun.Result> rs, ToDoubleFunction<ThroughputRun.Result> f) {
    return Medians.of(rs.stream().mapToDouble(f).toArray());
  }

  private static double perRecordMicros(long nanos, ThroughputRun.Result r) {
    return nanos < 0 ? Double.NaN : nanos / 1e3 / Math.max(1, r.steadyRecords());
  }

  private static String perRecord(long nanos, double records) {
    return nanos < 0 ? "-" : f0(nanos / 1e3 / records);
  }

  private static String pct(long part, long whole) {
    return part < 0 || whole <= 0
        ? "-"
        : String.format(Locale.ROOT, "%.0f %%", 100.0 * part / whole);
  }

  private static String f0(double v) {
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String f1(double v) {
    return String.format(Locale.ROOT, "%,.1f", v);
  }

  private static String f2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  /**
   * The command line.
   *
   * @param settings stream-app settings for every variant, from {@code --kafka KEY=VALUE} ({@code
   *     PREFIXLOG_KAFKA_*} pass-throughs)
   */
  record Options(
      Path corpora,
      int records,
      int rounds,
      int warmupRounds,
      List<Variant> variants,
      int concurrentSessions,
      long seed,
      Map<String, String> settings,
      int stagePasses,
      boolean stageProfile,
      int agentSessions,
      int agentTurns,
      boolean jsonEvents,
      boolean profile,
      Duration samplerPeriod,
      boolean jfr,
      int topFrames,
      Path out) {

    static Options of(CommandLine line) throws UsageException {
      Map<String, String> settings = new TreeMap<>();
      for (String kv : line.values("kafka")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new UsageException("--kafka needs KEY=VALUE, got " + kv);
        }
        String key = kv.substring(0, eq).trim();
        if (key.contains("_")) {
          throw new UsageException(
              "--kafka " + key + ": keys with '_' cannot pass through PREFIXLOG_KAFKA_*");
        }
        settings.put(
            "PREFIXLOG_KAFKA_" + key.toUpperCase(Locale.ROOT).replace('.', '_'),
            kv.substring(eq + 1));
      }
      Path corpora = Corpora.of(line);
      if (!Files.isDirectory(corpora.resolve("agentic"))) {
        throw new UsageException("--corpora " + corpora + " has no agentic/ directory");
      }
      List<Variant> variants =
          List.of(
              Variant.PREFIXLOG, Variant.PASS_THROUGH, Variant.STORE, Variant.ROUTED_PASS_THROUGH);
      if (line.value("variants").isPresent()) {
        try {
          variants = variants(line.value("variants").get());
        } catch (IllegalArgumentException e) {
          throw new UsageException("--variants: " + e.getMessage());
        }
      }
      return new Options(
          corpora.toAbsolutePath().normalize(),
          (int) line.longValue("records", 20_000, 100),
          (int) line.longValue("rounds", 3, 1),
          (int) line.longValue("warmup-rounds", 1, 0),
          variants,
          (int) line.longValue("concurrent-sessions", 256, 1),
          line.longValue("seed", 20261121L, Long.MIN_VALUE),
          Map.copyOf(settings),
          (int) line.longValue("stage-passes", 3, 1),
          !line.has("no-stage-profile"),
          (int) line.longValue("agent-sessions", 0, 0),
          (int) line.longValue("agent-turns", 70, 1),
          line.has("json-events"),
          !line.has("no-profile"),
          line.value("sampler-ms").isPresent()
              ? Duration.ofMillis(line.longValue("sampler-ms", 0, 0))
              : StackSampler.DEFAULT_PERIOD,
          line.has("jfr"),
          (int) line.longValue("top-frames", 12, 1),
          line.value("out").map(Path::of).orElse(null));
    }

    private static List<Variant> variants(String list) {
      List<Variant> variants = new ArrayList<>();
      for (String code : list.split(",")) {
        Variant v = Variant.ofCode(code);
        if (!variants.contains(v)) {
          variants.add(v);
        }
      }
      return List.copyOf(variants);
    }
  }
}
