package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.cli.ProjectHome;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.StreamApps;
import io.prefixlog.tools.analyze.TraceLines.Req;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayCommand;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code analyze} against a real broker: the lookups topic, read as compaction leaves it. */
@ExtendWith(KafkaExtension.class)
class AnalyzeIT {
  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  private int analyze(String... args) {
    return new AnalyzeCommand(console.fresh()).run(args);
  }

  /**
   * Creates the topics and waits until every partition has a leader. CI saw a producer's batches
   * for a partition of a topic created a moment before expire after 120 s with no send, on a broker
   * other test classes of the JVM had kept busy; a partition without a leader now fails here,
   * named, instead of as a send timeout.
   */
  private static void createWithLeaders(KafkaCluster kafka, NewTopic... topics) throws Exception {
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      List<NewTopic> all = List.of(topics);
      admin.createTopics(all).all().get();
      List<String> names = all.stream().map(NewTopic::name).toList();
      await()
          .alias(names + " have a leader for every partition")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> admin.describeTopics(names).allTopicNames().get().values(),
              described ->
                  described.stream()
                      .flatMap(d -> d.partitions().stream())
                      .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldAnalyseTheLookupsTopicAsTheLatestRecordOfEveryRequest(KafkaCluster kafka)
      throws Exception {
    // Given: a trace's records on 3 partitions, each request first with a stale record that is
    // replaced later, and one extra request that is then erased by a tombstone
    String prefix = "analyze-it.";
    String topic = prefix + "chunk.lookups";
    createWithLeaders(kafka, new NewTopic(topic, 3, (short) 1));
    List<Req> trace = TraceLines.random(11, 40, List.of("m1", "m2"));
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(kafka.clientConfig(), new StringSerializer(), new StringSerializer())) {
      for (Req r : trace) {
        Req stale = Req.of(r.timestamp(), r.model(), r.chunkSize(), 16, 0xdead);
        sends.add(
            producer.send(
                new ProducerRecord<>(topic, r.requestId(), TraceLines.prefixlog(stale, "bytes"))));
      }
      Req erased = Req.of(1_763_700_000, "m1", 16, 16, 0xbeef);
      sends.add(
          producer.send(
              new ProducerRecord<>(topic, "erased", TraceLines.prefixlog(erased, "bytes"))));
      for (Req r : trace) {
        sends.add(
            producer.send(
                new ProducerRecord<>(topic, r.requestId(), TraceLines.prefixlog(r, "bytes"))));
      }
      sends.add(producer.send(new ProducerRecord<>(topic, "erased", null)));
      producer.flush();
    }
    for (Future<RecordMetadata> send : sends) {
      send.get(); // a send that failed (a loaded machine) fails here, not as a shorter topic
    }
    Path file =
        Files.write(
            dir.resolve("final.jsonl"),
            new ArrayList<>(trace.stream().map(r -> TraceLines.prefixlog(r, "bytes")).toList()));

    // When
    int fromTopic =
        analyze(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--topic-prefix",
            prefix,
            "--csv",
            dir.resolve("topic").toString(),
            "--capacity",
            "30",
            "--window",
            "10m");
    String topicOut = console.out();
    int fromFile =
        analyze(
            "--file",
            file.toString(),
            "--csv",
            dir.resolve("file").toString(),
            "--capacity",
            "30",
            "--window",
            "10m");

    // Then
    assertThat(fromTopic).as(topicOut).isEqualTo(Command.OK);
    assertThat(fromFile).isEqualTo(Command.OK);
    assertThat(topicOut)
        .startsWith(
            "analyze: "
                + topic
                + " at "
                + kafka.bootstrapServers()
                + ": 3 partitions, "
                + String.format(java.util.Locale.ROOT, "%,d", 2 * trace.size() + 2)
                + " records, ")
        .contains(
            "  1 tombstone, "
                + String.format(java.util.Locale.ROOT, "%,d", trace.size() + 1)
                + " replaced by a later record of the same key\n");
    assertThat(Files.readString(dir.resolve("topic/curve.csv")))
        .isEqualTo(Files.readString(dir.resolve("file/curve.csv")));
    assertThat(Files.readString(dir.resolve("topic/rolling.csv")))
        .isEqualTo(Files.readString(dir.resolve("file/rolling.csv")));
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldAnalyseVersion2RecordsOnTheTopicExactlyAsTheirVersion1Form(KafkaCluster kafka)
      throws Exception {
    // Given: the same traffic on two topics of 3 partitions, once per version, each record in its
    // session's partition as the stream app writes it
    List<LookupTraffic.Record> traffic = LookupTraffic.records();
    createWithLeaders(
        kafka,
        new NewTopic("v1.chunk.lookups", 3, (short) 1),
        new NewTopic("v2.chunk.lookups", 3, (short) 1));
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(kafka.clientConfig(), new StringSerializer(), new StringSerializer())) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (LookupTraffic.Record r : traffic) {
        for (boolean v2 : new boolean[] {false, true}) {
          sent.add(
              producer.send(
                  new ProducerRecord<>(
                      (v2 ? "v2" : "v1") + ".chunk.lookups", r.partition(3), r.key(), r.json(v2))));
        }
      }
      producer.flush();
      for (java.util.concurrent.Future<?> send : sent) {
        send.get(); // a send that failed fails here, not as a shorter topic
      }
    }

    // When
    String[] options = {"--capacity", "400", "--window", "2s", "--no-opt"};
    int v1 =
        analyze(
            concat(
                List.of(
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    "v1.",
                    "--csv",
                    dir.resolve("v1").toString()),
                options));
    String v1Out = console.out();
    int v2 =
        analyze(
            concat(
                List.of(
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    "v2.",
                    "--csv",
                    dir.resolve("v2").toString()),
                options));
    String v2Out = console.out();

    // Then
    assertThat(v1).as(v1Out).isEqualTo(Command.OK);
    assertThat(v2).as(v2Out).isEqualTo(Command.OK);
    long referring = traffic.stream().filter(r -> !r.v2().isWhole()).count();
    assertThat(v2Out)
        .contains(
            "  "
                + String.format(java.util.Locale.ROOT, "%,d", traffic.size())
                + " records of version 2 (schema_version 2); "
                + String.format(java.util.Locale.ROOT, "%,d", referring)
                + " listed only the hashes after those of their chain's previous turn and were"
                + " all resolved from it\n");
    assertThat(analysisPart(v2Out)).isEqualTo(analysisPart(v1Out));
    for (String csv : List.of("curve.csv", "rolling.csv")) {
      assertThat(Files.readString(dir.resolve("v2").resolve(csv)))
          .as(csv)
          .isEqualTo(Files.readString(dir.resolve("v1").resolve(csv)));
    }

    // And: export --lmcache-lookups writes the same log from either topic, the version 1 records
    for (String version : List.of("v1", "v2")) {
      int code =
          new io.prefixlog.tools.reconstruct.ExportCommand(console.terminal())
              .run(
                  new String[] {
                    "--bootstrap", kafka.bootstrapServers(),
                    "--topic-prefix", version + ".",
                    "--lmcache-lookups", dir.resolve("log-" + version).toString()
                  });
      assertThat(code).as(console.out()).isEqualTo(Command.OK);
    }
    StringBuilder log = new StringBuilder();
    traffic.stream()
        .sorted(java.util.Comparator.comparingDouble(r -> r.v1().timestamp()))
        .forEach(r -> log.append(r.json(false)).append('\n'));
    Path logFile = dir.resolve("log-v2/lookup_hashes_20251121_044000_000000.jsonl");
    assertThat(Files.readString(logFile)).isEqualTo(log.toString());
    assertThat(Files.readString(dir.resolve("log-v1").resolve(logFile.getFileName())))
        .isEqualTo(log.toString());
  }

  private static String[] concat(List<String> first, String[] rest) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }

  /** The report from its first model section to the files written: what does not name the input. */
  private static String analysisPart(String report) {
    return report.substring(report.indexOf("\n== "), report.indexOf("\nwrote "));
  }

  @Test
  @Timeout(value = 420, unit = TimeUnit.SECONDS)
  void shouldShowHighPrefixHitRatesAboveTheWorkingSetOfAnAgenticReplayThroughTheStreamApp(
      KafkaCluster kafka) throws Exception {
    // Given: the stream app, and agentic sessions replayed interleaved through it
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    List<Path> corpora =
        List.of(
            root.resolve("corpora/agentic/swe_agent_trajectories.jsonl"),
            root.resolve("corpora/agentic/tau_bench_gpt4o_airline.jsonl"));
    int conversations = 12;
    int turns = 0;
    for (Path corpus : corpora) {
      for (Conversation c : CorpusFile.read(corpus).subList(0, conversations)) {
        turns += c.requestCount();
      }
    }
    Map<String, String> settings =
        StreamApps.settings(
            kafka.bootstrapServers(),
            "analyze-e2e.",
            "tools-analyze-end-to-end",
            dir.resolve("state"));
    settings.put("PREFIXLOG_PARTITIONS", "3");
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings))) {
      StreamApps.start(app);
      List<String> replay = new ArrayList<>();
      for (Path corpus : corpora) {
        replay.add("--corpus");
        replay.add(corpus.toString());
      }
      replay.addAll(
          List.of(
              "--conversations",
              Integer.toString(conversations),
              "--interleave",
              "8",
              "--bootstrap",
              kafka.bootstrapServers(),
              "--topic-prefix",
              "analyze-e2e."));
      int replayed = new ReplayCommand(console.errOnly()).run(replay.toArray(String[]::new));
      assertThat(replayed).as(console.err()).isEqualTo(Command.OK);
      StreamApps.committed(kafka, "analyze-e2e.chunk.lookups", turns, Duration.ofSeconds(180));

      // When
      int code =
          analyze(
              "--bootstrap", kafka.bootstrapServers(),
              "--topic-prefix", "analyze-e2e.",
              "--csv", dir.resolve("csv").toString(),
              "--png", dir.resolve("png").toString());

      // Then: every turn was looked up; with a cache above the working set, the prefix cache
      // hits nearly all the bytes that an agent re-sends; with a one-chunk cache, nothing
      assertThat(code).as(console.out()).isEqualTo(Command.OK);
      assertThat(console.out())
          .contains(
              " listed only the hashes after those of their chain's previous turn and were all")
          .doesNotContain("unresolved")
          .contains("== prefixlog-demo  (chunks of 256 bytes)")
          .contains("  requests " + String.format(java.util.Locale.ROOT, "%,d", turns) + ",");
      List<String> curve = Files.readAllLines(dir.resolve("csv/curve.csv"));
      String[] first = curve.get(1).split(",");
      String[] last = curve.get(curve.size() - 1).split(",");
      assertThat(first[2]).isEqualTo("1");
      assertThat(Double.parseDouble(first[4])).isZero();
      assertThat(Double.parseDouble(last[4]))
          .as("prefix byte hit rate at the working set")
          .isGreaterThan(0.85);
      assertThat(Double.parseDouble(last[5]))
          .as("prefix chunk hit rate at the working set")
          .isGreaterThan(0.85);
      BufferedImage chart = ImageIO.read(dir.resolve("png/curve.png").toFile());
      assertThat(chart.getWidth()).isEqualTo(HitRateChart.WIDTH);
      assertThat(chart.getHeight()).isEqualTo(HitRateChart.HEIGHT);
      assertThat(ImageIO.read(dir.resolve("png/rolling.png").toFile())).isNotNull();
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldSayClearlyThatTheTopicDoesNotExist(KafkaCluster kafka) {
    // When
    int code = analyze("--bootstrap", kafka.bootstrapServers(), "--topic-prefix", "absent.");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog analyze: topic absent.chunk.lookups does not exist at "
                + kafka.bootstrapServers()
                + " (the stream app creates it; check --topic-prefix)\n");
  }
}
