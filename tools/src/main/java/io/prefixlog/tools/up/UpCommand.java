package io.prefixlog.tools.up;

import io.prefixlog.core.config.Settings;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.rebuild.SessionReport;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.StartupException;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.analyze.AnalyzeCommand;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.ProjectHome;
import io.prefixlog.tools.cli.Terminal;
import io.prefixlog.tools.cli.Units;
import io.prefixlog.tools.cli.UsageException;
import io.prefixlog.tools.cli.Version;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.replay.ReplayEvents;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * {@code prefixlog up}: starts a real single-node Kafka broker (KRaft, a child JVM that dies with
 * this one) and the stream app, prints where each listens, and runs until Ctrl-C. With {@code
 * --demo} it also replays bundled corpora through the pipeline and prints, per corpus, turns, bytes
 * in, bytes out and the rebuild check.
 */
public final class UpCommand implements Command {
  static final List<Option> OPTIONS =
      List.of(
          Option.value(
              "data-dir",
              "DIR",
              "<project>/var/up",
              "Where the broker and the stream app keep data."),
          Option.value(
              "kafka-port", "PORT", "9092", "The broker's port on 127.0.0.1 (0: any free port)."),
          Option.value(
              "metrics-port", "PORT", "9464", "The stream app's /metrics and /health port."),
          Option.flag("fresh", "Delete the data directory first (a clean start)."),
          Option.flag(
              "demo",
              "Replay bundled corpora through the pipeline and print what it stored and whether"
                  + " every body rebuilt."),
          Option.value(
              "demo-chat-conversations",
              "N",
              "300",
              "Conversations replayed from each chat corpus in the demo (agentic ones: all)."),
          Option.flag("exit-after-demo", "Stop everything once the demo has printed its report."),
          Option.value(
              "kv-endpoint",
              "LIST",
              "none",
              "Subscribe to these engines' KV-cache events (vLLM's ZMQ PUB endpoints,"
                  + " tcp://host:5557[,...]); --demo without it runs a demo engine."),
          Option.value(
              "kv-replay",
              "LIST",
              "none",
              "Their replay (ROUTER) endpoints, one per --kv-endpoint (tcp://host:5558[,...])."),
          Option.flag(
              "archive",
              "Also start the archive: s3proxy and a Kafka Connect worker with the Iceberg sink"
                  + " (deltas, chunk lookups and KV events into Parquet tables)."),
          Option.value(
              "s3-port", "PORT", "9000", "With --archive: s3proxy's port (0: any free port)."));

  /** The options above, then the bridge's (capture proxy and demo engine). */
  private static final List<Option> ALL_OPTIONS =
      Stream.concat(OPTIONS.stream(), BridgePart.OPTIONS.stream()).toList();

  /** Demo corpora sent through the capture proxy (when the demo engine is behind it). */
  private static final List<String> DEMO_VIA_PROXY =
      List.of("agentic/tau_bench_gpt4o_airline", "chat/oasst_en100_threads");

  private static final String DESCRIPTION =
      """
      Starts prefixlog's embedded default, all on loopback: a single-node Kafka broker (KRaft,
      started from the Kafka jars as a child process that dies with this one) and the stream app
      (exactly-once, RocksDB state), which creates its topics; with --kv-endpoint also the KV-event
      subscriber (in-process) for those engines, whose events the stream app turns into the block
      index and source statistics. Prints where each listens, then runs until Ctrl-C. --demo runs
      a demo KV engine on loopback first and checks the block index against its cache. Session keys of --demo traffic use $PREFIXLOG_SESSION_SECRET, else the
      development secret.
      """;

  private static final List<String> DEMO_AGENTIC =
      List.of("agentic/swe_agent_trajectories", "agentic/tau_bench_gpt4o_airline");
  private static final List<String> DEMO_CHAT =
      List.of("chat/oasst_en100_threads", "chat/hh_rlhf_helpful_base_test");

  private static final JsonSerde<DeltaRecord> DELTAS = JsonSerde.of(DeltaRecord.class);

  private final Terminal terminal;

  public UpCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public String name() {
    return "up";
  }

  @Override
  public List<Option> options() {
    return ALL_OPTIONS;
  }

  @Override
  public String summary() {
    return "Start the embedded default: a real Kafka broker and the stream app (--demo: replay).";
  }

  @Override
  public int run(String[] args) {
    CommandLine line;
    Path dataDir;
    int kafkaPort;
    int metricsPort;
    int chatConversations;
    BridgePart.Options bridgeOptions;
    try {
      line = CommandLine.parse("prefixlog up", ALL_OPTIONS, args);
      if (line.helpRequested()) {
        terminal.out().print(CommandLine.help("prefixlog up", DESCRIPTION, ALL_OPTIONS));
        return OK;
      }
      Path home = ProjectHome.find().orElse(Path.of("").toAbsolutePath());
      dataDir =
          Path.of(line.string("data-dir", home.resolve("var/up").toString())).toAbsolutePath();
      kafkaPort = (int) line.longValue("kafka-port", 9092, 0);
      metricsPort = (int) line.longValue("metrics-port", 9464, 0);
      chatConversations = (int) line.longValue("demo-chat-conversations", 300, 1);
      bridgeOptions = BridgePart.Options.from(line);
      if (kafkaPort > 65535 || metricsPort > 65535) {
        throw new UsageException("ports go up to 65535");
      }
      if (line.has("kv-replay") && !line.has("kv-endpoint")) {
        throw new UsageException("--kv-replay needs --kv-endpoint");
      }
    } catch (UsageException e) {
      terminal.err().println("prefixlog up: " + e.getMessage());
      return USAGE;
    }
    try {
      if (line.has("fresh")) {
        deleteRecursively(dataDir);
      }
      Files.createDirectories(dataDir);
      return up(line, dataDir, kafkaPort, metricsPort, chatConversations, bridgeOptions);
    } catch (StartupException e) {
      terminal.err().println("prefixlog up: the Kafka broker did not start: " + e.getMessage());
      return FAILED;
    } catch (IOException | RuntimeException e) {
      terminal.err().println("prefixlog up: " + e.getMessage());
      return FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FAILED;
    }
  }

  private int up(
      CommandLine line,
      Path dataDir,
      int kafkaPort,
      int metricsPort,
      int chatConversations,
      BridgePart.Options bridgeOptions)
      throws IOException, InterruptedException {
    PrintStream out = terminal.out();
    out.println("prefixlog up: starting a Kafka broker (KRaft) on 127.0.0.1:" + kafkaPort + " ...");
    long started = System.nanoTime();
    KafkaBroker broker =
        KafkaBroker.start(
            KafkaBroker.Options.defaults(dataDir.resolve("kafka")).withBrokerPort(kafkaPort));
    Map<String, String> settings = new HashMap<>(terminal.env());
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    settings.putIfAbsent("PREFIXLOG_STATE_DIR", dataDir.resolve("streams").toString());
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));
    if (line.has("demo")) {
      settings.putIfAbsent("PREFIXLOG_KV_STATS_INTERVAL", "1s"); // the report reads them soon
    }
    StreamAppConfig config = StreamAppConfig.fromSettings(Settings.of(settings));
    StreamApp app = new StreamApp(config);
    ArchivePart archive = new ArchivePart(terminal.env());
    CountDownLatch stop = new CountDownLatch(1);
    AtomicReference<KvDemo> kv = new AtomicReference<>();
    AtomicReference<BridgePart> bridge = new AtomicReference<>();
    Thread shutdown =
        new Thread(
            () -> {
              if (bridge.get() != null) {
                bridge.get().close(); // first: stop accepting, drain, flush its producer
              }
              if (kv.get() != null) {
                kv.get().close();
              }
              app.close();
              archive.close();
              broker.close();
              stop.countDown();
            },
            "prefixlog-up-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    app.start();
    awaitRunning(app);
    if (line.has("archive")) {
      archive.start(line, dataDir, broker.bootstrapServers(), config, out);
    }
    bridge.set(
        BridgePart.start(
            bridgeOptions, terminal.env(), broker.bootstrapServers(), config.topicPrefix()));
    Topics topics = config.topics();
    out.printf(
        Locale.ROOT,
        "prefixlog is up (%s):%n"
            + "  kafka         %s   (KRaft, data and broker.log in %s)%n"
            + "  stream app    application id %s, state in %s%n"
            + "  metrics       http://%s:%d/metrics   health: /health%n"
            + "  topics        %s (in)  ->  %s, %s%n"
            + "%s%n"
            + "  try           bin/prefixlog replay --turns 100   then   bin/prefixlog reconstruct%n",
        Units.seconds(System.nanoTime() - started),
        broker.bootstrapServers(),
        broker.dataDir(),
        config.applicationId(),
        config.stateDir().toAbsolutePath(),
        config.metricsHost(),
        app.metricsPort(),
        topics.requestsRaw().name(),
        topics.sessionDeltas().name(),
        topics.deadLetters().name(),
        bridge.get().describe());
    archive.printBanner(out);
    if (line.has("kv-endpoint") || (line.has("demo") && config.kvIndexEnabled())) {
      kv.set(
          KvDemo.start(
              line.string("kv-endpoint", ""),
              line.string("kv-replay", ""),
              config,
              broker.bootstrapServers(),
              terminal.env()));
      out.print(kv.get().describe());
    }
    int code = OK;
    if (line.has("demo")) {
      code = kv.get() == null ? OK : kv.get().report(out);
      if (code == OK) {
        code =
            new Demo(
                    app,
                    broker.bootstrapServers(),
                    broker.dataDir(),
                    config,
                    chatConversations,
                    bridge.get())
                .run();
      }
    }
    if (line.has("exit-after-demo") || code != OK) {
      Runtime.getRuntime().removeShutdownHook(shutdown);
      shutdown.run();
      return code;
    }
    out.println("prefixlog is running; Ctrl-C stops the stream app and the broker.");
    out.flush();
    stop.await();
    return OK;
  }

  private static void awaitRunning(StreamApp app) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (app.state() != KafkaStreams.State.RUNNING) {
      if (app.state() == KafkaStreams.State.ERROR || System.nanoTime() > deadline) {
        throw new IllegalStateException("the stream app did not reach RUNNING: " + app.state());
      }
      Thread.sleep(100);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The demo: replay corpora one by one, then rebuild everything from the deltas topic. */
  private final class Demo {
    private final StreamApp app;
    private final String bootstrap;
    private final Path brokerDir;
    private final StreamAppConfig config;
    private final int chatConversations;
    private final BridgePart bridge;

    Demo(
        StreamApp app,
        String bootstrap,
        Path brokerDir,
        StreamAppConfig config,
        int chatConversations,
        BridgePart bridge) {
      this.app = app;
      this.bootstrap = bootstrap;
      this.brokerDir = brokerDir;
      this.config = config;
      this.chatConversations = chatConversations;
      this.bridge = bridge;
    }

    int run() throws InterruptedException {
      PrintStream out = terminal.out();
      Path corpora =
          ProjectHome.find()
              .orElseThrow(() -> new IllegalStateException("cannot find the project's corpora/"))
              .resolve("corpora");
      String secret =
          terminal.env().getOrDefault(ReplayCommand.SECRET_ENV, ReplayCommand.DEV_SESSION_SECRET);
      ReplayEvents keys = new ReplayEvents(secret, Version.current());
      List<DemoCorpus> demo = new ArrayList<>();
      // Through the proxy only to the demo engine: another engine may not serve the demo's model.
      Predicate<String> viaProxy = n -> bridge.demoEngine() && DEMO_VIA_PROXY.contains(n);
      DEMO_AGENTIC.forEach(
          n -> demo.add(DemoCorpus.of(corpora, n, Integer.MAX_VALUE, keys, viaProxy.test(n))));
      DEMO_CHAT.forEach(
          n -> demo.add(DemoCorpus.of(corpora, n, chatConversations, keys, viaProxy.test(n))));

      out.println();
      out.println("demo: replaying " + demo.size() + " corpora through the pipeline ...");
      long expected = turnsSoFar();
      List<long[]> outBytes = new ArrayList<>();
      long demoTurns = 0;
      for (DemoCorpus corpus : demo) {
        long recordBytesBefore = recordBytes();
        long storedBefore = storedBytes();
        int code = replay(corpus, secret);
        if (code != OK) {
          return code;
        }
        expected += corpus.turns();
        demoTurns += corpus.turns();
        awaitTurns(expected);
        outBytes.add(new long[] {recordBytes() - recordBytesBefore, awaitStored(storedBefore)});
        out.printf(
            Locale.ROOT, "  %-36s %6d turns replayed and encoded%n", corpus.name(), corpus.turns());
      }
      Map<String, long[]> rebuilt = rebuildAll(demo, demoTurns);
      out.println();
      out.printf(
          Locale.ROOT,
          "%-36s %8s %6s %10s %10s %10s %7s %5s %7s %8s %8s%n",
          "corpus",
          "sessions",
          "turns",
          "bytes in",
          "JSON out",
          "stored",
          "in/stor",
          "via",
          "cached",
          "rebuilt",
          "mismatch");
      int failures = 0;
      for (int i = 0; i < demo.size(); i++) {
        DemoCorpus corpus = demo.get(i);
        long[] check = rebuilt.getOrDefault(corpus.name(), new long[4]);
        long jsonOut = outBytes.get(i)[0];
        long stored = outBytes.get(i)[1];
        long mismatches = corpus.turns() - check[0];
        failures += mismatches > 0 || check[1] > 0 ? 1 : 0;
        out.printf(
            Locale.ROOT,
            "%-36s %8d %6d %10s %10s %10s %6.1fx %5s %7s %8d %8d%n",
            corpus.name(),
            corpus.sessions().size(),
            corpus.turns(),
            Units.bytes(corpus.bodyBytes()),
            Units.bytes(jsonOut),
            Units.bytes(stored),
            (double) corpus.bodyBytes() / Math.max(1, stored),
            corpus.viaProxy() ? "proxy" : "kafka",
            check[2] == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * check[3] / check[2]),
            check[0],
            mismatches + check[1]);
      }
      out.println(
          "bytes in: request bodies; JSON out: the delta records; stored: what the broker's log"
              + " segments of "
              + config.topics().sessionDeltas().name()
              + " grew by (zstd batches);\nrebuilt: turns rebuilt from that topic whose"
              + " body_sha256 matched;\nvia: sent through the capture proxy to the engine, or"
              + " produced to Kafka directly; cached: the prompt tokens the engine reported as"
              + " prefix-cached, as the deltas carry them.");
      if (failures == 0) {
        out.println("demo: OK, 0 rebuild mismatches.");
        return analyze(demoTurns);
      }
      out.println("demo: FAILED, " + failures + " corpora did not rebuild; see above.");
      return FAILED;
    }

    /**
     * The chunk-hash lookups of the demo traffic, analysed as {@code prefixlog analyze} does: hit
     * rate against KV-cache capacity, with the charts written next to the data.
     */
    private int analyze(long demoTurns) throws InterruptedException {
      if (!config.chunkLookupsEnabled()) {
        return OK;
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (lookupsSoFar() < demoTurns && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      // Let the last exactly-once transaction commit before reading the topic.
      Thread.sleep(config.commitInterval().toMillis() * 5);
      Path charts = brokerDir.getParent().resolve("analysis");
      terminal.out().println();
      terminal.out().println("demo: prefixlog analyze (charts and CSV in " + charts + "):");
      return new AnalyzeCommand(terminal)
          .run(
              new String[] {
                "--bootstrap", bootstrap,
                "--topic-prefix", config.topicPrefix(),
                "--png", charts.toString(),
                "--csv", charts.toString()
              });
    }

    private long lookupsSoFar() {
      long total = 0;
      for (String chunked : List.of("chat_messages", "completion_prompt", "raw_body")) {
        total +=
            Meters.count(
                app.metrics().registry(), "prefixlog_chunk_lookups_total", "chunked", chunked);
      }
      return total;
    }

    private int replay(DemoCorpus corpus, String secret) {
      PrintStream quiet =
          new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
      Map<String, String> env = new HashMap<>(terminal.env());
      env.put(ReplayCommand.SECRET_ENV, secret);
      Terminal replayTerminal = new Terminal(quiet, terminal.err(), env, false);
      List<String> args =
          new ArrayList<>(
              List.of(
                  "--corpus", corpus.file().toString(),
                  "--conversations", Integer.toString(corpus.conversations()),
                  "--interleave", "8",
                  "--bootstrap", bootstrap,
                  "--topic-prefix", config.topicPrefix()));
      if (corpus.viaProxy()) {
        args.addAll(
            List.of(
                "--via-proxy", bridge.proxyUrl(),
                "--concurrency", "8",
                "--stream", Double.toString(DemoCorpus.STREAM_FRACTION)));
      }
      return new ReplayCommand(replayTerminal).run(args.toArray(String[]::new));
    }

    private long turnsSoFar() {
      return Meters.count(app.metrics().registry(), "prefixlog_turns_total");
    }

    private long recordBytes() {
      return Meters.count(app.metrics().registry(), "prefixlog_record_bytes_out_total");
    }

    private void awaitTurns(long expected) throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (turnsSoFar() < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the stream app encoded " + turnsSoFar() + " of " + expected + " turns in 5 minutes");
        }
        Thread.sleep(100);
      }
    }

    /** Bytes of the deltas topic's log segments on the broker's disk. */
    private long storedBytes() {
      String prefix = config.topics().sessionDeltas().name() + "-";
      try (Stream<Path> partitions = Files.list(brokerDir.resolve("data"))) {
        long total = 0;
        for (Path partition :
            partitions.filter(p -> p.getFileName().toString().startsWith(prefix)).toList()) {
          try (Stream<Path> files = Files.list(partition)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
              total += Files.size(file);
            }
          }
        }
        return total;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot measure the deltas topic on disk", e);
      }
    }

    /** Waits until the topic's segments stop growing (the last transaction is committed). */
    private long awaitStored(long before) throws InterruptedException {
      long last = -1;
      long now = storedBytes();
      while (now != last) {
        Thread.sleep(config.commitInterval().toMillis() * 5);
        last = now;
        now = storedBytes();
      }
      return now - before;
    }

    /**
     * Per corpus: {turns rebuilt and verified, turns with problems, prompt tokens, cached tokens}.
     */
    private Map<String, long[]> rebuildAll(List<DemoCorpus> demo, long demoTurns) {
      Map<String, String> corpusOfSession = new HashMap<>();
      demo.forEach(c -> c.sessions().forEach(s -> corpusOfSession.put(s, c.name())));
      Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
      String topic = config.topics().sessionDeltas().name();
      Map<String, long[]> result = new HashMap<>();
      for (ConsumerRecord<String, byte[]> record :
          readCommitted(topic, corpusOfSession, demoTurns)) {
        DeltaRecord delta = DELTAS.fromBytes(record.value());
        if (delta.promptTokens() != null && delta.cachedTokens() != null) {
          long[] tally =
              result.computeIfAbsent(corpusOfSession.get(delta.sessionKey()), k -> new long[4]);
          tally[2] += delta.promptTokens();
          tally[3] += delta.cachedTokens();
        }
        rebuilder.addTopicRecord(
            record.key(),
            record.value(),
            "partition " + record.partition() + " offset " + record.offset());
      }
      RebuildReport report =
          rebuilder.run(
              new RebuildListener() {
                @Override
                public void onSessionDone(SessionReport session) {
                  long[] tally =
                      result.computeIfAbsent(
                          corpusOfSession.get(session.sessionKey()), k -> new long[4]);
                  tally[0] += session.counts().rebuiltOk();
                  tally[1] += session.counts().failures(false);
                }
              });
      report.problems().stream()
          .limit(5)
          .forEach(p -> terminal.err().println("demo: rebuild problem: " + p));
      return result;
    }

    /**
     * The committed records of the demo's sessions, waiting until there are {@code expected}: the
     * stream app has encoded them, but its last transaction may still be committing.
     */
    private List<ConsumerRecord<String, byte[]>> readCommitted(
        String topic, Map<String, String> corpusOfSession, long expected) {
      Map<String, Object> props = new HashMap<>();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      int max = (int) Math.min(Integer.MAX_VALUE, config.maxRecordBytes());
      props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, max);
      props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, max);
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
      try (KafkaConsumer<String, byte[]> consumer =
          new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
        List<TopicPartition> partitions =
            consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (records.size() < expected && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
            if (corpusOfSession.containsKey(DeltaRecord.sessionOfKey(record.key()))) {
              records.add(record);
            }
          }
        }
      }
      return records;
    }
  }
}
