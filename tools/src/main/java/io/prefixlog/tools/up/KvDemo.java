package io.prefixlog.tools.up;

import io.prefixlog.bridge.kv.KvBridge;
import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.cli.Units;
import io.prefixlog.core.config.Settings;
import io.prefixlog.demo.DemoKvEngine;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.topic.BlockIndexView;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.zeromq.ZContext;

/**
 * The KV-cache events in {@code prefixlog up}: the ingest bridge's KV-event subscriber, in-process
 * (its public entry point, {@link KvBridge}), publishing to the embedded broker's {@code
 * kv.events}, which the stream app turns into the block index and the source statistics. With
 * {@code --kv-endpoint} it subscribes to real engines; with {@code --demo} and no endpoint, to a
 * {@link DemoKvEngine} on loopback, and {@link #report} shows what came out.
 */
final class KvDemo implements Part {
  /** Scheduler steps the demo engine publishes. */
  static final int DEMO_BATCHES = 400;

  private final ZContext context;
  private final DemoKvEngine engine;
  private final KvBridge bridge;
  private final KvBridgeConfig bridgeConfig;
  private final StreamAppConfig config;
  private final String bootstrap;
  private boolean closed;

  private KvDemo(
      ZContext context,
      DemoKvEngine engine,
      KvBridgeConfig bridgeConfig,
      StreamAppConfig config,
      String bootstrap) {
    this.context = context;
    this.engine = engine;
    this.bridgeConfig = bridgeConfig;
    this.bridge = new KvBridge(bridgeConfig);
    this.config = config;
    this.bootstrap = bootstrap;
  }

  /**
   * Starts the subscriber, and the demo engine when {@code endpoints} is empty.
   *
   * @param endpoints the engines' PUB endpoints ({@code --kv-endpoint}), comma separated, or ""
   * @param replays their replay endpoints ({@code --kv-replay}), or ""
   * @param env the environment: {@code PREFIXLOG_KV_*} settings apply
   */
  static KvDemo start(
      String endpoints,
      String replays,
      StreamAppConfig config,
      String bootstrap,
      Map<String, String> env)
      throws IOException {
    ZContext context = null;
    DemoKvEngine engine = null;
    Map<String, String> settings = new HashMap<>(env);
    if (endpoints.isEmpty()) {
      context = new ZContext();
      engine = new DemoKvEngine(context, DEMO_BATCHES);
      endpoints = engine.pubEndpoint();
      replays = engine.replayEndpoint();
      settings.put("PREFIXLOG_KV_TOPIC", "");
      settings.put("PREFIXLOG_KV_DP_RANKS", "0");
    }
    settings.put("PREFIXLOG_KV_ENDPOINTS", endpoints);
    settings.put("PREFIXLOG_KV_REPLAY_ENDPOINTS", replays);
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_TOPIC_PREFIX", config.topicPrefix());
    settings.put("PREFIXLOG_METRICS_PORT", "-1"); // the stream app's endpoint is the one served
    KvBridgeConfig bridgeConfig = KvBridgeConfig.fromSettings(Settings.of(settings));
    KvDemo demo = new KvDemo(context, engine, bridgeConfig, config, bootstrap);
    try {
      demo.bridge.start();
      if (engine != null) {
        engine.start();
      }
    } catch (IOException | RuntimeException e) {
      try {
        demo.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return demo;
  }

  /** The line {@code up} prints about it. */
  String describe() {
    List<String> sources = bridgeConfig.subscriptions().stream().map(s -> s.source().id()).toList();
    return String.format(
        Locale.ROOT,
        "  kv events     %s%s -> %s -> %s, %s%n",
        engine == null ? "" : "demo engine ",
        String.join(", ", sources),
        config.topics().kvEvents().name(),
        config.topics().blockIndex().name(),
        config.topics().sourceStats().name());
  }

  /**
   * Waits for the demo engine's batches to reach the block index and prints what the index and the
   * statistics say, next to what the engine holds.
   *
   * @return {@link Command#OK} when the index holds exactly the engine's blocks
   */
  int report(PrintStream out) throws InterruptedException {
    if (engine == null || !config.kvIndexEnabled()) {
      return Command.OK;
    }
    out.println();
    out.println(
        "demo: KV-cache events from a demo engine in vLLM's framing (PUB "
            + engine.pubEndpoint()
            + ", replay "
            + engine.replayEndpoint()
            + ") ...");
    if (!engine.awaitPublished(120)) {
      out.println("demo: FAILED, the demo engine did not publish: " + engine.failure());
      return Command.FAILED;
    }
    String source = bridgeConfig.subscriptions().get(0).source().id();
    Set<String> expected = engine.residentHashes();
    Set<String> indexed = Set.of();
    SourceStats stats = null;
    JsonSerde<SourceStats> statsSerde = JsonSerde.of(SourceStats.class);
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    try {
      while (System.nanoTime() < deadline) {
        indexed =
            BlockIndexView.residentHashes(
                bootstrap, config.topics().blockIndex().name(), "prefixlog-up-kv", source::equals);
        byte[] last =
            CompactedView.read(bootstrap, config.topics().sourceStats().name(), "prefixlog-up-kv")
                .get(source);
        stats = last == null ? null : statsSerde.fromBytes(last);
        if (indexed.equals(expected)
            && stats != null
            && stats.seq() == engine.batchesPublished() - 1) {
          break;
        }
        Thread.sleep(500);
      }
    } catch (TopicScan.ScanException | IOException e) {
      out.println("demo: FAILED, cannot read the KV topics: " + e.getMessage());
      return Command.FAILED;
    }
    out.printf(
        Locale.ROOT,
        "  published     %s batches, %s events (%s blocks stored, %s removed), 16-token blocks%n",
        Units.count(engine.batchesPublished()),
        Units.count(engine.eventsPublished()),
        Units.count(engine.blocksStored()),
        Units.count(engine.blocksRemoved()));
    out.printf(
        Locale.ROOT,
        "  block index   %s resident blocks in %s; the engine holds %s: %s%n",
        Units.count(indexed.size()),
        config.topics().blockIndex().name(),
        Units.count(expected.size()),
        indexed.equals(expected) ? "same blocks" : "DIFFERENT");
    if (stats != null) {
      out.printf(
          Locale.ROOT,
          "  source stats  %s resident blocks (%s tokens), %s stored, %s removed, lifetime p50"
              + " %s ms, %d sessions%n",
          Units.count(stats.residentBlocks()),
          Units.count(stats.residentTokens()),
          Units.count(stats.storesTotal()),
          Units.count(stats.removalsTotal()),
          stats.lifetimeP50Ms() == null ? "-" : Units.count(stats.lifetimeP50Ms()),
          stats.blocksStoredBySession() == null ? 0 : stats.blocksStoredBySession().size());
    }
    if (!indexed.equals(expected)) {
      out.println("demo: FAILED, the block index differs from the engine's cache.");
      return Command.FAILED;
    }
    out.println("demo: KV OK, the block index equals the engine's cache.");
    return Command.OK;
  }

  /** The subscriber (sending what is queued), then the demo engine and its sockets. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      bridge.close();
    } finally {
      if (engine != null) {
        engine.close();
      }
      if (context != null) {
        context.close();
      }
    }
  }
}
