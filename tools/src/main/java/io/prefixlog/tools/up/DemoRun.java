package io.prefixlog.tools.up;

import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.cli.Version;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.rebuild.SessionReport;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.analyze.AnalyzeRequest;
import io.prefixlog.tools.analyze.AnalyzeService;
import io.prefixlog.tools.replay.CorpusReplayRequest;
import io.prefixlog.tools.replay.CorpusReplayService;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.replay.ReplayEvents;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The demo of {@code up --demo}, run once every part is up: replays the bundled corpora one by one
 * (two of them through the capture proxy when the bundled demo engine is behind it), rebuilds every
 * turn from the deltas topic, prints the table, then analyses the chunk lookups. Not a part: it
 * holds nothing running, only the values the parts exposed when they started.
 */
final class DemoRun {
  /** A run's mark in its session ids: its start, to the second, in UTC (20261127T045001Z). */
  private static final DateTimeFormatter RUN_ID =
      DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** Demo corpora sent through the capture proxy (when the demo engine is behind it). */
  private static final List<String> DEMO_VIA_PROXY =
      List.of("agentic/tau_bench_gpt4o_airline", "chat/oasst_en100_threads");

  private static final List<String> DEMO_AGENTIC =
      List.of("agentic/swe_agent_trajectories", "agentic/tau_bench_gpt4o_airline");
  private static final List<String> DEMO_CHAT =
      List.of("chat/oasst_en100_threads", "chat/hh_rlhf_helpful_base_test");

  private static final JsonSerde<DeltaRecord> DELTAS = JsonSerde.of(DeltaRecord.class);

  private final Terminal terminal;
  private final StreamAppPart.Counters counters;
  private final String bootstrap;
  private final Path brokerDir;
  private final StreamAppConfig config;
  private final int chatConversations;
  private final Optional<String> demoProxyUrl;

  /**
   * @param counters the stream app's counters: how far it got
   * @param bootstrap the broker's bootstrap servers
   * @param brokerDir the broker's directory, whose log segments the table measures
   * @param demoProxyUrl the capture proxy's URL when the bundled demo engine is behind it: only
   *     then does the demo go through the proxy, since another engine may not serve the demo's
   *     model
   */
  DemoRun(
      Terminal terminal,
      StreamAppPart.Counters counters,
      String bootstrap,
      Path brokerDir,
      StreamAppConfig config,
      int chatConversations,
      Optional<String> demoProxyUrl) {
    this.terminal = terminal;
    this.counters = counters;
    this.bootstrap = bootstrap;
    this.brokerDir = brokerDir;
    this.config = config;
    this.chatConversations = chatConversations;
    this.demoProxyUrl = demoProxyUrl;
  }

  /** Runs the demo; {@link Command#OK} when every turn rebuilt and the analysis ran. */
  int run() throws InterruptedException {
    PrintStream out = terminal.out();
    Path corpora =
        ProjectHome.find()
            .orElseThrow(() -> new IllegalStateException("cannot find the project's corpora/"))
            .resolve("corpora");
    String secret =
        terminal.env().getOrDefault(ReplayCommand.SECRET_ENV, ReplayCommand.DEV_SESSION_SECRET);
    ReplayEvents keys = new ReplayEvents(secret, Version.current());
    // Each run's conversations are sessions of their own: on a data directory kept from an
    // earlier run (no --fresh) the same ids would continue that run's sessions, and the check
    // below would count that run's turns as this one's (it reported "FAILED" with turns missing
    // and more rebuilt than replayed: UpCommandIT runs the demo twice).
    String sessionSuffix = "@demo-" + RUN_ID.format(Instant.now());
    List<DemoCorpus> demo = new ArrayList<>();
    // Through the proxy only to the demo engine: another engine may not serve the demo's model.
    Predicate<String> viaProxy = n -> demoProxyUrl.isPresent() && DEMO_VIA_PROXY.contains(n);
    DEMO_AGENTIC.forEach(
        n ->
            demo.add(
                DemoCorpus.of(
                    corpora, n, Integer.MAX_VALUE, keys, sessionSuffix, viaProxy.test(n))));
    DEMO_CHAT.forEach(
        n ->
            demo.add(
                DemoCorpus.of(
                    corpora, n, chatConversations, keys, sessionSuffix, viaProxy.test(n))));

    out.println();
    out.println("demo: replaying " + demo.size() + " corpora through the pipeline ...");
    long expected = turnsSoFar();
    List<long[]> outBytes = new ArrayList<>();
    long demoTurns = 0;
    for (DemoCorpus corpus : demo) {
      long recordBytesBefore = recordBytes();
      long storedBefore = storedBytes();
      int code = replay(corpus, secret, sessionSuffix);
      if (code != Command.OK) {
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
    return Command.FAILED;
  }

  /**
   * The chunk-hash lookups of the demo traffic, analysed as {@code prefixlog analyze} does: hit
   * rate against KV-cache capacity beside the optimal bound, and the routing what-if over a small
   * fleet, with the charts written next to the data.
   */
  private static final int DEMO_REPLICAS = 4;

  private static final int DEMO_REPLICA_CHUNKS = 100;

  private int analyze(long demoTurns) throws InterruptedException {
    if (!config.chunkLookupsEnabled()) {
      return Command.OK;
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
    AnalyzeRequest request =
        AnalyzeRequest.builder()
            .topic(bootstrap, config.topicPrefix())
            .png(charts)
            .csv(charts)
            // The routing what-if over a small fleet: four replicas of 100 chunks each hold about
            // what the single cache needs for 90 % of its achievable rate on the bundled corpus
            // (389 chunks), so the policies differ visibly.
            .routing(DEMO_REPLICAS, DEMO_REPLICA_CHUNKS)
            .build();
    return new AnalyzeService(terminal).run(request).outcome().exitCode();
  }

  private long lookupsSoFar() {
    long total = 0;
    for (String chunked : List.of("chat_messages", "completion_prompt", "raw_body")) {
      total += counters.count("prefixlog_chunk_lookups_total", "chunked", chunked);
    }
    return total;
  }

  private int replay(DemoCorpus corpus, String secret, String sessionSuffix) {
    PrintStream quiet =
        new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    Terminal replayTerminal = new Terminal(quiet, terminal.err(), terminal.env(), false);
    CorpusReplayRequest.Builder request =
        CorpusReplayRequest.builder()
            .corpus(List.of(corpus.file()))
            .conversations(corpus.conversations())
            .sessionSuffix(sessionSuffix)
            .interleave(8)
            .secret(secret)
            .topic(bootstrap, config.topicPrefix());
    if (corpus.viaProxy()) {
      request.viaProxy(URI.create(demoProxyUrl.orElseThrow()), 8, DemoCorpus.STREAM_FRACTION);
    }
    return new CorpusReplayService(replayTerminal).run(request.build()).outcome().exitCode();
  }

  private long turnsSoFar() {
    return counters.count("prefixlog_turns_total");
  }

  private long recordBytes() {
    return counters.count("prefixlog_record_bytes_out_total");
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
    for (ConsumerRecord<String, byte[]> record : readCommitted(topic, corpusOfSession, demoTurns)) {
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
      consumer.seekToBeginning(TopicScan.assignAll(consumer, topic));
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
