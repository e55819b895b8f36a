package io.prefixlog.tools.up;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.config.Settings;
import io.prefixlog.embedded.StartupException;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * {@code prefixlog up}: starts a real single-node Kafka broker (KRaft, a child JVM that dies with
 * this one) and the stream app, prints where each listens, and runs until Ctrl-C. With {@code
 * --demo} it also replays bundled corpora through the pipeline and prints, per corpus, turns, bytes
 * in, bytes out and the rebuild check.
 *
 * <p>This class parses the options and keeps the order of things; each running piece is a {@link
 * Part} ({@link BrokerPart}, {@link StreamAppPart}, {@link EmbeddedArchivePart}, {@link DemoPart},
 * {@link BridgePart}) started in that order onto a {@link Parts} stack, which stops them in reverse
 * order on Ctrl-C, at the end of {@code --exit-after-demo}, or when a later start fails. What a
 * part needs from an earlier one (the bootstrap servers, the demo engine's URL) it gets as a value
 * when it starts.
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
              "s3-port", "PORT", "9000", "With --archive: s3proxy's port (0: any free port)."),
          Option.value(
              "ui-port",
              "PORT",
              "8470",
              "The session explorer's port on 127.0.0.1 (prefixlog ui; 0: any free port, -1: no"
                  + " UI)."));

  /** The options above, then the bridge's (capture proxy and demo engine). */
  private static final List<Option> ALL_OPTIONS =
      Stream.concat(OPTIONS.stream(), BridgePart.OPTIONS.stream()).toList();

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

  private final Terminal terminal;

  public UpCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  /**
   * What the command line asks for.
   *
   * @param line the options the parts read themselves (--demo, --archive, --kv-endpoint, ...)
   * @param home the checkout (or the working directory)
   */
  private record UpOptions(
      CommandLine line,
      Path home,
      Path dataDir,
      int kafkaPort,
      int metricsPort,
      int uiPort,
      int chatConversations,
      BridgePart.Options bridge) {
    static UpOptions of(CommandLine line) throws UsageException {
      Path home = ProjectHome.find().orElse(Path.of("").toAbsolutePath());
      int kafkaPort = (int) line.longValue("kafka-port", 9092, 0);
      int metricsPort = (int) line.longValue("metrics-port", 9464, 0);
      int uiPort = (int) line.longValue("ui-port", 8470, -1);
      if (kafkaPort > 65535 || metricsPort > 65535 || uiPort > 65535) {
        throw new UsageException("ports go up to 65535");
      }
      if (line.has("kv-replay") && !line.has("kv-endpoint")) {
        throw new UsageException("--kv-replay needs --kv-endpoint");
      }
      return new UpOptions(
          line,
          home,
          Path.of(line.string("data-dir", home.resolve("var/up").toString())).toAbsolutePath(),
          kafkaPort,
          metricsPort,
          uiPort,
          (int) line.longValue("demo-chat-conversations", 300, 1),
          BridgePart.Options.from(line));
    }
  }

  @Override
  public Spec spec() {
    return new Spec(
        "up",
        "Start the embedded default: a real Kafka broker and the stream app (--demo: replay).",
        DESCRIPTION,
        ALL_OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return invoke(args, terminal, UpOptions::of, this::start);
  }

  private int start(UpOptions options) {
    CommandLine line = options.line();
    Path dataDir = options.dataDir();
    try {
      if (line.has("fresh")) {
        deleteRecursively(dataDir);
      }
      Files.createDirectories(dataDir);
      return up(options);
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

  private int up(UpOptions options) throws IOException, InterruptedException {
    CommandLine line = options.line();
    Parts parts = new Parts();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread shutdown = new Thread(() -> stop(parts, stopped), "prefixlog-up-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    int code;
    try {
      code = startAndDemo(parts, options);
    } catch (Throwable e) {
      removeShutdownHook(shutdown);
      parts.closeAfter(e);
      throw e;
    }
    if (line.has("exit-after-demo") || code != OK) {
      removeShutdownHook(shutdown);
      parts.close();
      return code;
    }
    terminal.out().println("prefixlog is running; Ctrl-C stops the stream app and the broker.");
    terminal.out().flush();
    stopped.await();
    return OK;
  }

  /**
   * Starts the parts in order, each given what it needs of the earlier ones, prints where they
   * listen, and with {@code --demo} runs the demo.
   *
   * @return the demo's exit code, or {@link #OK}
   */
  private int startAndDemo(Parts parts, UpOptions options)
      throws IOException, InterruptedException {
    CommandLine line = options.line();
    Path dataDir = options.dataDir();
    Path home = options.home();
    int kafkaPort = options.kafkaPort();
    BridgePart.Options bridgeOptions = options.bridge();
    PrintStream out = terminal.out();
    out.println("prefixlog up: starting a Kafka broker (KRaft) on 127.0.0.1:" + kafkaPort + " ...");
    long started = System.nanoTime();
    BrokerPart broker = parts.start(() -> BrokerPart.start(dataDir.resolve("kafka"), kafkaPort));
    String bootstrap = broker.bootstrapServers();
    StreamAppConfig config =
        streamAppConfig(
            bootstrap, dataDir, options.metricsPort(), line.has("demo"), terminal.env());
    StreamAppPart app = parts.start(() -> StreamAppPart.start(config));
    Optional<EmbeddedArchivePart> archive = Optional.empty();
    if (line.has("archive")) {
      int s3Port = EmbeddedArchivePart.s3Port(line);
      out.println("prefixlog up: starting the archive (s3proxy, Kafka Connect + Iceberg sink) ...");
      archive =
          Optional.of(
              parts.start(
                  () ->
                      EmbeddedArchivePart.start(
                          dataDir,
                          home,
                          bootstrap,
                          config.topicPrefix(),
                          config.maxRecordBytes(),
                          s3Port,
                          terminal.env())));
    }
    DemoPart.Options demoOptions =
        new DemoPart.Options(
            bridgeOptions.wantsDemoEngine(),
            line.has("kv-endpoint") || (line.has("demo") && config.kvIndexEnabled()),
            line.string("kv-endpoint", ""),
            line.string("kv-replay", ""));
    DemoPart demo =
        parts.start(() -> DemoPart.start(demoOptions, config, bootstrap, terminal.env()));
    BridgePart bridge =
        parts.start(
            () ->
                BridgePart.start(
                    bridgeOptions,
                    demo.engineUrl(),
                    terminal.env(),
                    bootstrap,
                    config.topicPrefix()));
    Optional<UiPart> ui =
        options.uiPort() < 0
            ? Optional.empty()
            : Optional.of(
                parts.start(() -> UiPart.start(bootstrap, config.topicPrefix(), options.uiPort())));
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
        bootstrap,
        broker.dataDir(),
        config.applicationId(),
        config.stateDir().toAbsolutePath(),
        config.metricsHost(),
        app.metricsPort(),
        topics.requestsRaw().name(),
        topics.sessionDeltas().name(),
        topics.deadLetters().name(),
        bridge.describe());
    ui.ifPresent(u -> out.print(u.banner()));
    archive.ifPresent(a -> out.print(a.banner()));
    out.print(demo.describeKv());
    if (!line.has("demo")) {
      return OK;
    }
    int code = demo.reportKv(out);
    if (code != OK) {
      return code;
    }
    return new DemoRun(
            terminal,
            app.counters(),
            bootstrap,
            broker.dataDir(),
            config,
            options.chatConversations(),
            bridge.demoEngine() ? Optional.of(bridge.proxyUrl()) : Optional.empty())
        .run();
  }

  /** The stream app's settings: the environment's, with the broker, state dir and port of up. */
  private static StreamAppConfig streamAppConfig(
      String bootstrap, Path dataDir, int metricsPort, boolean demo, Map<String, String> env) {
    Map<String, String> settings = new HashMap<>(env);
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.putIfAbsent("PREFIXLOG_STATE_DIR", dataDir.resolve("streams").toString());
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));
    if (demo) {
      settings.putIfAbsent("PREFIXLOG_KV_STATS_INTERVAL", "1s"); // the report reads them soon
    }
    return StreamAppConfig.fromSettings(Settings.of(settings));
  }

  /** The shutdown hook: Ctrl-C stops every part, last started first. */
  private void stop(Parts parts, CountDownLatch stopped) {
    try {
      parts.close();
    } catch (RuntimeException e) {
      terminal.err().println("prefixlog up: stopping: " + e);
    } finally {
      stopped.countDown();
    }
  }

  private static void removeShutdownHook(Thread shutdown) {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdown);
    } catch (IllegalStateException e) {
      // The JVM is shutting down already: the hook is closing the parts.
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
}
