package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The parts the pipeline tests share: the corpus replay, the stream app as a child JVM, and the
 * check that the deltas topic holds exactly one delta per raw event and rebuilds every body.
 */
final class Pipeline {
  static final String SECRET = "pipeline-it-session-secret";

  private Pipeline() {}

  /**
   * How many raw events {@link #replay} sends: the first {@code conversations} conversations of
   * each agentic file and of the chat file ({@code --conversations} limits each file).
   */
  static long expectedEvents(int conversations) throws Exception {
    List<Path> files = new ArrayList<>();
    try (var agentic = Files.list(agentic())) {
      agentic.filter(f -> f.toString().endsWith(".jsonl")).forEach(files::add);
    }
    files.add(chat());
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    long expected = 0;
    for (Path file : files) {
      expected +=
          CorpusFile.read(file).stream()
              .limit(conversations)
              .mapToLong(c -> requests.of(c).size())
              .sum();
    }
    return expected;
  }

  /** The number of conversations of the largest agentic file: a limit that keeps all of them. */
  static int allAgenticConversations() throws Exception {
    int most = 0;
    try (var agentic = Files.list(agentic())) {
      for (Path file : agentic.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        most = Math.max(most, CorpusFile.read(file).size());
      }
    }
    return most;
  }

  /**
   * Replays the first {@code chatConversations} conversations of every agentic file and of the chat
   * file, 8 sessions interleaved, through the replay command; {@code extraArgs} are added (a rate).
   */
  static void replay(KafkaCluster kafka, String prefix, int chatConversations, String... extraArgs)
      throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Terminal terminal =
        new Terminal(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--corpus", agentic().toString(),
                "--corpus", chat().toString(),
                "--conversations", Integer.toString(chatConversations),
                "--interleave", "8",
                "--bootstrap", kafka.bootstrapServers(),
                "--topic-prefix", prefix,
                "--secret", SECRET));
    args.addAll(List.of(extraArgs));
    int code = new ReplayCommand(terminal).run(args.toArray(String[]::new));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Command.OK);
  }

  static Path agentic() {
    return ProjectHome.findFrom(Path.of("")).orElseThrow().resolve("corpora/agentic");
  }

  static Path chat() {
    return ProjectHome.findFrom(Path.of(""))
        .orElseThrow()
        .resolve("corpora/chat/hh_rlhf_helpful_base_test.jsonl");
  }

  static Map<String, String> settings(
      KafkaCluster kafka, String prefix, String applicationId, Path stateDir, int partitions) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", prefix);
    settings.put("PREFIXLOG_APPLICATION_ID", applicationId);
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_PARTITIONS", Integer.toString(partitions));
    return settings;
  }

  static void createTopics(KafkaCluster kafka, Map<String, String> settings) throws Exception {
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    Properties admin = new Properties();
    admin.put("bootstrap.servers", kafka.bootstrapServers());
    try (Admin client = Admin.create(admin)) {
      TopicCreator.createMissing(client, config, Duration.ofSeconds(60));
    }
  }

  /** The stream app's main in a child JVM, configured by a properties file in {@code dir}. */
  static ChildProcess streamApp(Path dir, Map<String, String> settings, String name)
      throws Exception {
    return streamApp(
        dir, settings, name, StreamApp.class.getName(), System.getProperty("java.class.path"));
  }

  /**
   * {@code mainClass} (a stream app's) in a child JVM on {@code classpath} (another build's, say),
   * configured by a properties file in {@code dir}; its log is {@code dir/name.log}.
   */
  static ChildProcess streamApp(
      Path dir, Map<String, String> settings, String name, String mainClass, String classpath)
      throws Exception {
    Properties properties = new Properties();
    properties.putAll(settings);
    Path file = dir.resolve(name + ".properties");
    try (var writer = Files.newBufferedWriter(file)) {
      properties.store(writer, "stream app " + name);
    }
    return ChildProcess.builder(mainClass)
        .classpath(classpath)
        .args(List.of("--config", file.toString()))
        .logFile(dir.resolve(name + ".log"))
        .start();
  }

  /** Waits until {@code topic} holds {@code count} committed records, while {@code app} lives. */
  static void awaitCommitted(KafkaCluster kafka, String topic, long count, ChildProcess app) {
    await()
        .alias(topic + " reaches " + count + " records")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              assertThat(app.isAlive()).as("stream app alive; log:\n%s", app.logTail(40)).isTrue();
              return Topics.countNow(kafka.bootstrapServers(), topic);
            },
            n -> n >= count);
  }

  /**
   * Exactly one delta per raw event (count and request ids), keys {@code session_key/seq} with a
   * session in one partition, and every body rebuilt from the deltas alone equal to the captured
   * one.
   */
  static void assertExactlyOnceAndLossless(KafkaCluster kafka, String prefix, long events) {
    Captured captured = Captured.read(kafka, prefix, events, Duration.ofMinutes(5));
    List<ConsumerRecord<String, byte[]>> raw = captured.raw();
    List<ConsumerRecord<String, byte[]>> deltas = captured.deltas();
    Map<String, RawRequestEvent> rawById = captured.rawById();
    List<DeltaRecord> records = captured.records();
    JsonSerde<DeltaRecord> deltaSerde = JsonSerde.of(DeltaRecord.class);

    // Exactly one delta per raw event: same count, and every request id once.
    assertThat(raw).hasSize((int) events);
    assertThat(records).hasSize((int) events);
    assertThat(records.stream().map(DeltaRecord::requestId).distinct().count()).isEqualTo(events);
    assertThat(rawById.keySet())
        .containsExactlyInAnyOrderElementsOf(records.stream().map(DeltaRecord::requestId).toList());
    // Keys are session_key/chain/seq, and a session's records share one partition.
    for (ConsumerRecord<String, byte[]> record : deltas) {
      DeltaRecord delta = deltaSerde.fromBytes(record.value());
      assertThat(record.key()).isEqualTo(delta.key());
      assertThat(delta.chain()).matches("[0-9a-f]{8}");
    }
    assertThat(
            deltas.stream()
                .collect(
                    Collectors.groupingBy(
                        r -> DeltaRecord.sessionOfKey(r.key()),
                        Collectors.mapping(ConsumerRecord::partition, Collectors.toSet())))
                .values())
        .allSatisfy(partitions -> assertThat(partitions).hasSize(1));

    // Every body rebuilds from the deltas alone, and equals the captured body.
    assertEveryBodyRebuilds(captured, events);
    assertThat(records.stream().filter(DeltaRecord::isKeyframe).count()).isLessThan(events / 2);
  }

  /** The raw and delta topics of one run, read back and decoded. */
  record Captured(
      List<ConsumerRecord<String, byte[]>> raw,
      List<ConsumerRecord<String, byte[]>> deltas,
      Map<String, RawRequestEvent> rawById,
      List<DeltaRecord> records) {

    /** Reads at least {@code events} records of each topic, waiting up to {@code deltasWait}. */
    static Captured read(KafkaCluster kafka, String prefix, long events, Duration deltasWait) {
      List<ConsumerRecord<String, byte[]>> raw =
          Topics.readAtLeast(
              kafka.bootstrapServers(), prefix + "requests.raw", events, Duration.ofMinutes(2));
      List<ConsumerRecord<String, byte[]>> deltas =
          Topics.readAtLeast(
              kafka.bootstrapServers(), prefix + "session.deltas", events, deltasWait);
      JsonSerde<RawRequestEvent> rawSerde = JsonSerde.of(RawRequestEvent.class);
      JsonSerde<DeltaRecord> deltaSerde = JsonSerde.of(DeltaRecord.class);
      Map<String, RawRequestEvent> rawById =
          raw.stream()
              .map(r -> RawEventFrame.readAsVersion1(r.value()))
              .collect(Collectors.toMap(RawRequestEvent::requestId, Function.identity()));
      List<DeltaRecord> records =
          deltas.stream().map(r -> deltaSerde.fromBytes(r.value())).toList();
      return new Captured(raw, deltas, rawById, records);
    }
  }

  /**
   * Every body rebuilds from the deltas alone with no problem, and each of the {@code events}
   * rebuilt bodies equals (SHA-256 and length) the body captured under its request id.
   */
  static void assertEveryBodyRebuilds(Captured captured, long events) {
    List<ConsumerRecord<String, byte[]>> deltas = captured.deltas();
    Map<String, RawRequestEvent> rawById = captured.rawById();
    List<DeltaRecord> records = captured.records();
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    for (ConsumerRecord<String, byte[]> record : deltas) {
      rebuilder.addTopicRecord(
          record.key(),
          record.value(),
          "partition " + record.partition() + " offset " + record.offset());
    }
    Map<String, String> requestOfTurn =
        records.stream().collect(Collectors.toMap(DeltaRecord::key, DeltaRecord::requestId));
    long[] matchedCapture = {0};
    RebuildReport report =
        rebuilder.run(
            new RebuildListener() {
              @Override
              public void onVerifiedBody(String sessionKey, long seq, byte[] body) {
                RawRequestEvent captured =
                    // sessionKey is the chain key, session_key/chain: with the seq, the record key
                    rawById.get(requestOfTurn.get(sessionKey + "/" + seq));
                if (Sha256.hex(body).equals(captured.bodySha256())
                    && body.length == captured.bodyLen()) {
                  matchedCapture[0]++;
                }
              }
            });
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().checksumMismatches()).isZero();
    assertThat(report.counts().brokenChains()).isZero();
    assertThat(report.counts().missingTurns()).isZero();
    assertThat(report.counts().rebuiltOk()).isEqualTo(events);
    assertThat(matchedCapture[0]).isEqualTo(events);
  }
}
