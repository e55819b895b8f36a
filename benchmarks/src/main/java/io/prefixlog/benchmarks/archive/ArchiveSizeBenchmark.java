package io.prefixlog.benchmarks.archive;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.archive.ArchiveEnv;
import io.prefixlog.tools.archive.EmbeddedArchive;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.CorpusReplayRequest;
import io.prefixlog.tools.replay.CorpusReplayService;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Archive bytes per turn: replays the agentic corpora through a real broker, the stream app and the
 * embedded archive (s3proxy + Connect + the Iceberg sink), then prints, for the same replay, the
 * request bytes, the delta topic's log segments on the broker, and the session_deltas table in the
 * bucket: its Parquet data files alone and everything under the table (manifests, metadata).
 *
 * <p>{@code ArchiveSizeBenchmark --help} lists the options.
 */
public final class ArchiveSizeBenchmark {
  private static final String PREFIX = "archive-bench.";
  private static final List<String> CORPORA =
      List.of("agentic/swe_agent_trajectories", "agentic/tau_bench_gpt4o_airline");

  private static final Benchmark BENCHMARK =
      new Benchmark(
          "ArchiveSizeBenchmark",
          "Bytes per turn: request bodies, the delta topic's log segments, and the session_deltas"
              + " Iceberg table's Parquet files and metadata, on an embedded broker, Connect and"
              + " s3proxy.",
          List.of(
              Option.value("conversations", "N", "all", "Conversations per corpus."),
              Option.value(
                  "commit-interval",
                  "D",
                  "10s",
                  "The sink's commit interval (fewer, larger files)."),
              Option.value("interleave", "K", "8", "Sessions interleaved by the replay.")));

  private ArchiveSizeBenchmark() {}

  /** The command line's values. */
  private record Settings(int conversations, String commitInterval, int interleave) {
    static Settings of(CommandLine line) throws UsageException {
      return new Settings(
          (int) Math.min(Integer.MAX_VALUE, line.longValue("conversations", Integer.MAX_VALUE, 1)),
          line.string("commit-interval", "10s"),
          (int) line.longValue("interleave", 8, 1));
    }
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, ArchiveSizeBenchmark::run);
  }

  private static int run(Settings settings) throws Exception {
    System.out.println(BENCHMARK.title());
    Machine.header(System.out);
    Path root = ProjectHome.find().orElseThrow(() -> new IllegalStateException("no project root"));
    Path dir = Files.createTempDirectory("prefixlog-archive-bench-");
    try {
      run(root, dir, settings.conversations(), settings.commitInterval(), settings.interleave());
      return 0;
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void run(
      Path root, Path dir, int maxConversations, String commitInterval, int interleave)
      throws Exception {
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<Path> corpora = new ArrayList<>();
    long turns = 0;
    long requestBytes = 0;
    int conversations = 0;
    for (String name : CORPORA) {
      Path file = root.resolve("corpora").resolve(name + ".jsonl");
      List<Conversation> all = CorpusFile.read(file);
      List<Conversation> used = all.subList(0, Math.min(maxConversations, all.size()));
      conversations = Math.max(conversations, used.size());
      for (Conversation c : used) {
        for (ChatRequests.ChatRequest r : requests.of(c)) {
          turns++;
          requestBytes += r.body().length;
        }
      }
      corpora.add(file);
    }
    try (KafkaBroker broker =
        KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("kafka")).withHeapMiB(512))) {
      Map<String, String> settings = new HashMap<>();
      settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", broker.bootstrapServers());
      settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
      settings.put("PREFIXLOG_APPLICATION_ID", "archive-size-benchmark");
      settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state").toString());
      settings.put("PREFIXLOG_METRICS_PORT", "-1");
      StreamAppConfig config = StreamAppConfig.defaults(settings);
      try (StreamApp app = new StreamApp(config)) {
        app.start();
        while (app.state() != KafkaStreams.State.RUNNING) {
          if (app.state() == KafkaStreams.State.ERROR) {
            throw new IllegalStateException("the stream app failed");
          }
          Thread.sleep(100);
        }
        try (EmbeddedArchive archive =
            EmbeddedArchive.start(
                dir.resolve("archive"),
                EmbeddedArchive.Artifacts.of(root),
                broker.bootstrapServers(),
                PREFIX,
                config.maxRecordBytes(),
                0,
                Map.of(ArchiveEnv.COMMIT_INTERVAL, commitInterval))) {
          CorpusReplayRequest replay =
              CorpusReplayRequest.builder()
                  .corpus(corpora)
                  .conversations(conversations)
                  .interleave(interleave)
                  .topic(broker.bootstrapServers(), PREFIX)
                  .build();
          Terminal quiet =
              new Terminal(
                  new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8),
                  System.err,
                  Map.of(),
                  false);
          long started = System.nanoTime();
          if (new CorpusReplayService(quiet).run(replay).outcome() != Outcome.DONE) {
            throw new IllegalStateException("the replay failed");
          }
          String table = ArchivedTopic.NAMESPACE + ".session_deltas";
          ArchiveReader.TableInfo info;
          try (ArchiveReader reader = ArchiveReader.open(archive.settings())) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (true) {
              info = reader.info(table).orElse(null);
              if (info != null && info.rows() >= turns) {
                break;
              }
              if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                    table + " holds " + (info == null ? 0 : info.rows()) + " of " + turns);
              }
              Thread.sleep(500);
            }
          }
          long archivedSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
          Path tableDir =
              archive
                  .s3()
                  .bucketDir()
                  .resolve("warehouse")
                  .resolve(ArchivedTopic.NAMESPACE)
                  .resolve("session_deltas");
          long parquet = bytes(tableDir.resolve("data"), ".parquet");
          long tableTotal = bytes(tableDir, "");
          long topicLog = broker.topicLogBytes(PREFIX + "session.deltas");
          print(
              turns,
              requestBytes,
              topicLog,
              parquet,
              tableTotal,
              info,
              commitInterval,
              archivedSeconds);
        }
      }
    }
  }

  private static void print(
      long turns,
      long requestBytes,
      long topicLog,
      long parquet,
      long tableTotal,
      ArchiveReader.TableInfo info,
      String commitInterval,
      long seconds) {
    System.out.printf(
        Locale.ROOT,
        "ArchiveSizeBenchmark: agentic corpora, %d turns, commit interval %s, %d snapshots,"
            + " %d Parquet data files (replay to all rows archived: %d s)%n%n",
        turns,
        commitInterval,
        info.snapshots(),
        info.dataFiles(),
        seconds);
    System.out.printf(
        Locale.ROOT, "%-50s %14s %12s %12s%n", "", "bytes", "bytes/turn", "request/x");
    row("request bodies (reference)", requestBytes, turns, requestBytes);
    row("delta topic log segments (broker, zstd batches)", topicLog, turns, requestBytes);
    row("archive: session_deltas Parquet data files", parquet, turns, requestBytes);
    row("archive: session_deltas total (incl. metadata)", tableTotal, turns, requestBytes);
    System.out.printf(
        Locale.ROOT,
        "%nParquet / delta topic: %.2f   total / delta topic: %.2f%n",
        (double) parquet / topicLog,
        (double) tableTotal / topicLog);
  }

  private static void row(String label, long bytes, long turns, long requestBytes) {
    System.out.printf(
        Locale.ROOT,
        "%-50s %14d %12.0f %11.1fx%n",
        label,
        bytes,
        (double) bytes / turns,
        (double) requestBytes / Math.max(1, bytes));
  }

  private static long bytes(Path dir, String suffix) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      long total = 0;
      for (Path f :
          files
              .filter(Files::isRegularFile)
              .filter(p -> p.getFileName().toString().endsWith(suffix))
              .toList()) {
        total += Files.size(f);
      }
      return total;
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
