package io.prefixlog.tools.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.StreamApps;
import io.prefixlog.tools.analyze.AnalyzeCommand;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.ui.ArchiveHistoryCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive end to end, all real and on loopback: a broker, the stream app, s3proxy and a Connect
 * worker running the assembled Iceberg sink plugin. Agentic sessions are replayed; the delta,
 * lookup, KV-event and request-metadata tables appear in the bucket as Parquet with committed
 * snapshots; then the broker is stopped and every body is rebuilt from the archived delta table
 * alone.
 */
class ArchiveIT {
  private static final String PREFIX = "archive-it.";
  private static final int CONVERSATIONS = 4;
  private static final int KV_BATCHES = 3;
  private static final String CHUNK_SIZES = "64,256";

  /** The chunk-size what-if's curves (ChunkSizeWhatIf.CSV). */
  private static final String CHUNK_SIZES_CSV = "chunk-sizes.csv";

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldRebuildEveryBodyFromTheArchivedTableWithTheBrokerStopped() throws Exception {
    // Given: broker, stream app and the embedded archive (commits every 3 s)
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    List<Path> corpora =
        List.of(
            root.resolve("corpora/agentic/swe_agent_trajectories.jsonl"),
            root.resolve("corpora/agentic/tau_bench_gpt4o_airline.jsonl"));
    long turns = 0;
    long requestBytes = 0;
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    for (Path corpus : corpora) {
      for (Conversation c : CorpusFile.read(corpus).subList(0, CONVERSATIONS)) {
        for (ChatRequests.ChatRequest r : requests.of(c)) {
          turns++;
          requestBytes += r.body().length;
        }
      }
    }
    KafkaBroker broker =
        KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("kafka")).withHeapMiB(384));
    EmbeddedArchive archive = null;
    try {
      Map<String, String> settings =
          StreamApps.settings(
              broker.bootstrapServers(), PREFIX, "tools-archive-it", dir.resolve("state"));
      StreamAppConfig config = StreamAppConfig.defaults(settings);
      try (StreamApp app = new StreamApp(config)) {
        StreamApps.start(app);
        archive =
            EmbeddedArchive.start(
                dir.resolve("archive"),
                EmbeddedArchive.Artifacts.of(root),
                broker.bootstrapServers(),
                PREFIX,
                config.maxRecordBytes(),
                0,
                Map.of(ArchiveEnv.COMMIT_INTERVAL, "3s"));

        // When: the agentic sessions are replayed, KV event batches published, and a tombstone
        // (an erased turn) sent to the deltas topic
        List<String> replay = new ArrayList<>();
        for (Path corpus : corpora) {
          replay.add("--corpus");
          replay.add(corpus.toString());
        }
        replay.addAll(
            List.of(
                "--conversations",
                Integer.toString(CONVERSATIONS),
                "--interleave",
                "4",
                "--bootstrap",
                broker.bootstrapServers(),
                "--topic-prefix",
                PREFIX));
        assertThat(new ReplayCommand(console.errOnly()).run(replay.toArray(String[]::new)))
            .as(console.err())
            .isEqualTo(Command.OK);
        publishKvBatches(broker.bootstrapServers());
        publishTombstone(broker.bootstrapServers(), PREFIX + "session.deltas", "erased-session/1");

        // Then: all four tables hold every record in committed snapshots (a metadata record per
        // request: every body was kept here, so one per turn)
        Map<String, Long> expected =
            Map.of(
                ArchivedTopic.NAMESPACE + ".session_deltas", turns,
                ArchivedTopic.NAMESPACE + ".chunk_lookups", turns,
                ArchivedTopic.NAMESPACE + ".kv_events", (long) KV_BATCHES,
                ArchivedTopic.NAMESPACE + ".requests_metadata", turns);
        try (ArchiveReader reader = ArchiveReader.open(archive.settings())) {
          for (Map.Entry<String, Long> table : expected.entrySet()) {
            ArchiveReader.TableInfo info =
                ArchiveRows.await(reader, table.getKey(), table.getValue());
            assertThat(info.rows()).as(table.getKey()).isEqualTo(table.getValue());
            assertThat(info.snapshots()).as(table.getKey()).isPositive();
            assertThat(info.schema()).contains("kafka_ts: optional timestamptz");
            assertThat(info.partitionSpec()).contains("kafka_ts_day: day(");
            assertThat(info.properties())
                .containsEntry("write.parquet.compression-codec", "zstd")
                .containsEntry("write.format.default", "parquet");
          }
        }
        assertThat(archive.connect().states().values()).containsOnly("RUNNING");
        Path warehouse = archive.s3().bucketDir().resolve("warehouse");
        for (String table :
            List.of("session_deltas", "chunk_lookups", "kv_events", "requests_metadata")) {
          Path tableDir = warehouse.resolve(ArchivedTopic.NAMESPACE).resolve(table);
          assertThat(filesEndingWith(tableDir.resolve("data"), ".parquet"))
              .as("Parquet files of " + table)
              .isNotEmpty();
          assertThat(filesEndingWith(tableDir.resolve("metadata"), ".metadata.json")).isNotEmpty();
        }
        long deltaTopicBytes = broker.topicLogBytes(PREFIX + "session.deltas");
        Path deltaTable = warehouse.resolve(ArchivedTopic.NAMESPACE).resolve("session_deltas");
        long parquet = bytes(filesEndingWith(deltaTable.resolve("data"), ".parquet"));
        long total = bytes(filesEndingWith(deltaTable, ""));
        System.out.printf(
            Locale.ROOT,
            "ArchiveIT: %d turns, request bytes %d (%.0f/turn), delta topic log %d (%.0f/turn),"
                + " archive Parquet %d (%.0f/turn), archive total %d (%.0f/turn)%n",
            turns,
            requestBytes,
            (double) requestBytes / turns,
            deltaTopicBytes,
            (double) deltaTopicBytes / turns,
            parquet,
            (double) parquet / turns,
            total,
            (double) total / turns);

        // When: the chunk-size what-if re-chunks the prompts from the live deltas topic (before the
        // UI check below tombstones a session there)
        assertThat(
                analyze(
                    "--chunk-sizes",
                    CHUNK_SIZES,
                    "--bootstrap",
                    broker.bootstrapServers(),
                    "--topic-prefix",
                    PREFIX,
                    "--csv",
                    dir.resolve("chunk-sizes-topic").toString()))
            .as(console.err())
            .isEqualTo(Command.OK);

        // And: the UI shows a session only the archive still has, rebuilt and checked, and hides
        // one an erasure acknowledgement names (issue 18)
        System.out.println(
            "ArchiveIT: UI "
                + ArchiveHistoryCheck.run(
                    broker.bootstrapServers(),
                    PREFIX,
                    archive.settings(),
                    ArchivedTopic.NAMESPACE + ".session_deltas"));
        archive.connect().close();
      }
    } finally {
      if (archive != null) {
        archive.connect().close();
      }
      broker.close();
    }
    try {
      assertThat(broker.isAlive()).isFalse();

      // When: every body is rebuilt from the archive, Kafka gone
      int code =
          new ReconstructCommand(console.terminal())
              .run(
                  new String[] {
                    "--archive",
                    "--s3-endpoint",
                    archive.settings().s3Endpoint(),
                    "--catalog-uri",
                    archive.settings().catalogUri(),
                    "--warehouse",
                    archive.settings().warehouse()
                  });

      // Then
      String report = console.out();
      assertThat(code).as(report + console.err()).isEqualTo(Command.OK);
      assertThat(report)
          .contains(row("turns", turns) + "\n")
          .contains(row("rebuilt ok", turns) + "  (")
          .contains(row("checksum mismatches", 0) + "\n")
          .contains(row("broken chains", 0) + "\n")
          .contains(row("malformed", 0) + "\n")
          .contains("OK: every turn was rebuilt and matched body_len and body_sha256");

      // When: the same what-if reads its prompts from the archive instead, Kafka gone
      int archived =
          analyze(
              "--chunk-sizes",
              CHUNK_SIZES,
              "--archive",
              "--s3-endpoint",
              archive.settings().s3Endpoint(),
              "--catalog-uri",
              archive.settings().catalogUri(),
              "--warehouse",
              archive.settings().warehouse(),
              "--csv",
              dir.resolve("chunk-sizes-archive").toString());

      // Then: every turn was rebuilt and checked, and the curves are those of the topic
      String summary = console.out();
      assertThat(archived).as(summary + console.err()).isEqualTo(Command.OK);
      assertThat(summary).contains(String.format(Locale.ROOT, "%d rebuilt and checked", turns));
      String fromArchive =
          Files.readString(dir.resolve("chunk-sizes-archive").resolve(CHUNK_SIZES_CSV));
      assertThat(fromArchive.lines().count()).isGreaterThan(2 * 10);
      assertThat(fromArchive)
          .isEqualTo(Files.readString(dir.resolve("chunk-sizes-topic").resolve(CHUNK_SIZES_CSV)));
    } finally {
      archive.close();
    }
  }

  private int analyze(String... args) {
    return new AnalyzeCommand(console.fresh()).run(args);
  }

  /** A count row of reconstruct's summary. */
  private static String row(String label, long value) {
    return String.format(
        Locale.ROOT, "  %-21s %12s", label, String.format(Locale.ROOT, "%,d", value));
  }

  private static void publishKvBatches(String bootstrap) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      for (int i = 1; i <= KV_BATCHES; i++) {
        String source = "tcp://127.0.0.1:5557|dp0|kv-events";
        String batch =
            "{\"schema_version\":1,\"source\":\""
                + source
                + "\",\"endpoint\":\"tcp://127.0.0.1:5557\",\"data_parallel_rank\":0,"
                + "\"topic\":\"kv-events\",\"seq\":"
                + i
                + ",\"ts\":"
                + (1_763_700_000_000L + i)
                + ",\"engine_ts\":1763700000.25,\"events\":[{\"type\":\"BlockStored\","
                + "\"block_hashes\":[\"00000000000000a"
                + i
                + "\"],\"token_count\":16,\"block_size\":16,\"medium\":\"GPU\"}]}";
        producer.send(new ProducerRecord<>(PREFIX + "kv.events", source, batch));
      }
      producer.flush();
    }
  }

  /** A tombstone on an archived topic: the sink must pass over it, not fail on it. */
  private static void publishTombstone(String bootstrap, String topic, String key) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, key, null));
      producer.flush();
    }
  }

  private static List<Path> filesEndingWith(Path dir, String suffix) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.getFileName().toString().endsWith(suffix))
          .toList();
    }
  }

  private static long bytes(List<Path> files) throws IOException {
    long total = 0;
    for (Path f : files) {
      total += Files.size(f);
    }
    return total;
  }
}
