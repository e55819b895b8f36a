package io.prefixlog.tools.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.cli.ProjectHome;
import io.prefixlog.tools.cli.Terminal;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of issue "session-delta pipeline" on a real broker: every agentic conversation of
 * the bundled corpora and more than 2,000 chat turns, replayed with sessions interleaved, come out
 * as exactly one delta per raw event, and every body rebuilds byte for byte from the deltas topic
 * alone — also when the stream app is SIGKILLed mid-run and a new instance restores its state from
 * the changelogs.
 */
@ExtendWith(KafkaExtension.class)
class SessionDeltaPipelineIT {
  private static final String SECRET = "pipeline-it-session-secret";
  private static final int HELPFUL_CONVERSATIONS = 850;

  @TempDir Path dir;

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void shouldRebuildEveryTurnByteForByteWithExactlyOneDeltaPerRawEvent(KafkaCluster kafka)
      throws Exception {
    // Given
    String prefix = "pipeline.";
    Map<String, String> settings = settings(kafka, prefix, "pipeline-app", dir.resolve("state"));
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings))) {
      app.start();
      awaitRunning(app);

      // When
      long events = replay(kafka, prefix);

      // Then
      assertExactlyOnceAndLossless(kafka, prefix, events);
      assertThat(app.metrics().registry().value("prefixlog_dead_letters_total", "")).isZero();
    }
  }

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void shouldLoseNoDeltaAndDuplicateNoneWhenTheStreamAppIsKilledMidRun(KafkaCluster kafka)
      throws Exception {
    // Given: the raw topic holds the whole replay before the app starts
    String prefix = "killed.";
    createTopics(kafka, prefix);
    long events = replay(kafka, prefix);
    Path config =
        writeConfig(settings(kafka, prefix, "killed-app", dir.resolve("state-first")), "first");

    // When: SIGKILL the app once it has committed about a third of the deltas, then start a new
    // instance with an empty state directory, which restores the stores from their changelogs
    try (ChildProcess first = streamApp(config, "first")) {
      awaitCommitted(kafka, prefix + "session.deltas", events / 3, first);
      ProcessHandle.of(first.pid()).orElseThrow().destroyForcibly();
      assertThat(first.waitFor(Duration.ofSeconds(30))).hasValue(137);
    }
    long committedAtKill = Topics.countNow(kafka.bootstrapServers(), prefix + "session.deltas");
    Path secondConfig =
        writeConfig(settings(kafka, prefix, "killed-app", dir.resolve("state-second")), "second");
    try (ChildProcess second = streamApp(secondConfig, "second")) {

      // Then
      assertThat(committedAtKill).isBetween(1L, events - 1);
      assertExactlyOnceAndLossless(kafka, prefix, events);
      assertThat(second.isAlive()).as("second instance log:\n%s", second.logTail(40)).isTrue();
    }
  }

  // --- the checks ---

  private static void assertExactlyOnceAndLossless(KafkaCluster kafka, String prefix, long events) {
    List<ConsumerRecord<String, byte[]>> raw =
        Topics.readAtLeast(
            kafka.bootstrapServers(), prefix + "requests.raw", events, Duration.ofMinutes(2));
    List<ConsumerRecord<String, byte[]>> deltas =
        Topics.readAtLeast(
            kafka.bootstrapServers(), prefix + "session.deltas", events, Duration.ofMinutes(5));
    JsonSerde<RawRequestEvent> rawSerde = JsonSerde.of(RawRequestEvent.class);
    JsonSerde<DeltaRecord> deltaSerde = JsonSerde.of(DeltaRecord.class);
    Map<String, RawRequestEvent> rawById =
        raw.stream()
            .map(r -> rawSerde.fromBytes(r.value()))
            .collect(Collectors.toMap(RawRequestEvent::requestId, Function.identity()));
    List<DeltaRecord> records = deltas.stream().map(r -> deltaSerde.fromBytes(r.value())).toList();

    // Exactly one delta per raw event: same count, and every request id once.
    assertThat(raw).hasSize((int) events);
    assertThat(records).hasSize((int) events);
    assertThat(records.stream().map(DeltaRecord::requestId).distinct().count()).isEqualTo(events);
    assertThat(rawById.keySet())
        .containsExactlyInAnyOrderElementsOf(records.stream().map(DeltaRecord::requestId).toList());
    // Keys are session_key/seq, and a session's records share one partition.
    for (ConsumerRecord<String, byte[]> record : deltas) {
      DeltaRecord delta = deltaSerde.fromBytes(record.value());
      assertThat(record.key()).isEqualTo(DeltaRecord.key(delta.sessionKey(), delta.seq()));
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
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    for (ConsumerRecord<String, byte[]> record : deltas) {
      rebuilder.addTopicRecord(
          record.key(),
          record.value(),
          "partition " + record.partition() + " offset " + record.offset());
    }
    Map<String, String> requestOfTurn =
        records.stream()
            .collect(
                Collectors.toMap(
                    d -> DeltaRecord.key(d.sessionKey(), d.seq()), DeltaRecord::requestId));
    long[] matchedCapture = {0};
    RebuildReport report =
        rebuilder.run(
            new RebuildListener() {
              @Override
              public void onVerifiedBody(String sessionKey, long seq, byte[] body) {
                RawRequestEvent captured =
                    rawById.get(requestOfTurn.get(DeltaRecord.key(sessionKey, seq)));
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
    assertThat(records.stream().filter(DeltaRecord::isKeyframe).count()).isLessThan(events / 2);
  }

  // --- the pipeline's parts ---

  /** Replays all agentic conversations and about 2,100 chat turns, 8 sessions interleaved. */
  private long replay(KafkaCluster kafka, String prefix) throws Exception {
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    Path agentic = root.resolve("corpora/agentic");
    Path chat = root.resolve("corpora/chat/hh_rlhf_helpful_base_test.jsonl");
    long expected = 0;
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    try (var files = Files.list(agentic)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        expected += CorpusFile.read(file).stream().mapToLong(c -> requests.of(c).size()).sum();
      }
    }
    long chatTurns =
        CorpusFile.read(chat).stream()
            .limit(HELPFUL_CONVERSATIONS)
            .mapToLong(c -> requests.of(c).size())
            .sum();
    assertThat(chatTurns).isGreaterThanOrEqualTo(2000);
    expected += chatTurns;

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Terminal terminal =
        new Terminal(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false);
    int code =
        new ReplayCommand(terminal)
            .run(
                new String[] {
                  "--corpus", agentic.toString(),
                  "--corpus", chat.toString(),
                  "--conversations", Integer.toString(HELPFUL_CONVERSATIONS),
                  "--interleave", "8",
                  "--bootstrap", kafka.bootstrapServers(),
                  "--topic-prefix", prefix,
                  "--secret", SECRET
                });
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Command.OK);
    return expected;
  }

  private static Map<String, String> settings(
      KafkaCluster kafka, String prefix, String applicationId, Path stateDir) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", prefix);
    settings.put("PREFIXLOG_APPLICATION_ID", applicationId);
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_PARTITIONS", "4");
    return settings;
  }

  private static void createTopics(KafkaCluster kafka, String prefix) throws Exception {
    StreamAppConfig config =
        StreamAppConfig.defaults(settings(kafka, prefix, "unused", Path.of("unused")));
    Properties admin = new Properties();
    admin.put("bootstrap.servers", kafka.bootstrapServers());
    try (Admin client = Admin.create(admin)) {
      io.prefixlog.streams.admin.TopicCreator.createMissing(client, config, Duration.ofSeconds(60));
    }
  }

  private Path writeConfig(Map<String, String> settings, String name) throws Exception {
    Properties properties = new Properties();
    properties.putAll(settings);
    Path file = dir.resolve(name + ".properties");
    try (var writer = Files.newBufferedWriter(file)) {
      properties.store(writer, "stream app " + name);
    }
    return file;
  }

  private ChildProcess streamApp(Path config, String name) {
    return ChildProcess.builder(StreamApp.class.getName())
        .args(List.of("--config", config.toString()))
        .logFile(dir.resolve(name + ".log"))
        .start();
  }

  private static void awaitCommitted(KafkaCluster kafka, String topic, long count, ChildProcess app)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (Topics.countNow(kafka.bootstrapServers(), topic) < count) {
      assertThat(app.isAlive()).as("stream app alive; log:\n%s", app.logTail(40)).isTrue();
      assertThat(System.nanoTime()).as("%s reaches %d records", topic, count).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static void awaitRunning(StreamApp app) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (app.state() != KafkaStreams.State.RUNNING) {
      assertThat(System.nanoTime())
          .as("stream app RUNNING, is %s", app.state())
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }
}
