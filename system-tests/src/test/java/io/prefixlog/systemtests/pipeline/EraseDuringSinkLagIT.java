package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.systemtests.pipeline.Traffic.Event;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.EmbeddedArchive;
import io.prefixlog.tools.erase.EraseCommand;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault scenario 17 of the suite ({@link FaultInjectionIT}'s sibling with the archive on): {@code
 * prefixlog erase --archive} while the archive's sink connectors are stopped (Connect's {@code PUT
 * /connectors/<name>/stop}, then {@code resume}), so that turns of the erased sessions wait in the
 * sink's lag. All real and on loopback: a broker, the stream app, s3proxy and a Connect worker with
 * the Iceberg sink (the embedded archive). Once the sink has caught up, the archive must hold no
 * row of an erased session, every other turn once, each rebuilt byte for byte; a dead letter that
 * holds an erased session's body must be gone from {@code dlq}, another session's must stay as it
 * was. The scenario prints the suite's line (events in, distinct, deltas, rebuilt, mismatches,
 * duplicates), counted in the archive.
 */
class EraseDuringSinkLagIT {
  private static final String PREFIX = "fi13.";
  private static final String APP = "fi13-app";
  private static final int PARTITIONS = 3;
  private static final String DELTAS_TABLE = ArchivedTopic.NAMESPACE + ".session_deltas";

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @Test
  @Timeout(value = 1500, unit = TimeUnit.SECONDS)
  void anEraseDuringSinkLagLeavesNoArchivedRowOnceTheSinkCatchesUp() throws Exception {
    // Given: sessions of the agentic and chat corpora; two will be erased, each with turns that
    // arrive while the sink is stopped (the last turn of the second one held back for later)
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    Traffic traffic = Traffic.of(3, System.currentTimeMillis() - 60_000, 1000);
    List<Event> first = traffic.firstTurns(2);
    List<Event> later = traffic.laterTurns(2);
    List<String> withLaterTurns = later.stream().map(Event::sessionKey).distinct().toList();
    String erasedWhileWaiting = withLaterTurns.get(0);
    String erasedAfterTimeout = withLaterTurns.get(1);
    Event heldBack =
        later.stream().filter(e -> e.sessionKey().equals(erasedAfterTimeout)).toList().get(0);
    List<Event> laterNow = later.stream().filter(e -> e != heldBack).toList();
    List<Event> all = new ArrayList<>(first);
    all.addAll(later);
    Set<String> erased = Set.of(erasedWhileWaiting, erasedAfterTimeout);
    long keptTurns = all.stream().filter(e -> !erased.contains(e.sessionKey())).count();
    String keptSession =
        all.stream().map(Event::sessionKey).filter(k -> !erased.contains(k)).findFirst().get();

    try (KafkaBroker kafka =
        KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("kafka")).withHeapMiB(384))) {
      Map<String, String> settings =
          Pipeline.settings(kafka, PREFIX, APP, dir.resolve("state"), PARTITIONS);
      StreamAppConfig config = StreamAppConfig.defaults(settings);
      EmbeddedArchive archive = null;
      try (StreamApp app = new StreamApp(config);
          KafkaProducer<String, byte[]> producer = Traffic.producer(kafka)) {
        app.start();
        await()
            .alias("stream app RUNNING")
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(100))
            .until(app::state, state -> state == KafkaStreams.State.RUNNING);
        archive =
            EmbeddedArchive.start(
                dir.resolve("archive"),
                EmbeddedArchive.Artifacts.of(root),
                kafka.bootstrapServers(),
                PREFIX,
                config.maxRecordBytes(),
                0,
                Map.of("PREFIXLOG_ARCHIVE_COMMIT_INTERVAL", "2s"));
        String[] archiveArgs = {
          "--archive",
          "--s3-endpoint",
          archive.settings().s3Endpoint(),
          "--catalog-uri",
          archive.settings().catalogUri(),
          "--warehouse",
          archive.settings().warehouse()
        };

        // The first two turns of every session are archived; a damaged capture of an erased
        // session and one of a kept session are dead letters that hold (part of) their bodies.
        Traffic.send(producer, PREFIX + "requests.raw", first);
        byte[] erasedLetterInput = damaged(first, erasedWhileWaiting);
        byte[] keptLetterInput = damaged(first, keptSession);
        producer.send(
            new ProducerRecord<>(PREFIX + "requests.raw", erasedWhileWaiting, erasedLetterInput));
        producer.send(new ProducerRecord<>(PREFIX + "requests.raw", keptSession, keptLetterInput));
        producer.flush();
        awaitArchivedRows(archive, first.size());
        awaitDeadLetters(kafka, 2);
        List<ConsumerRecord<String, byte[]>> keptLetters = lettersOf(kafka, keptSession);
        assertThat(keptLetters).hasSize(1);

        // When: the sink is stopped and the later turns come (all but one, held back)
        setConnectors(archive, "stop", "STOPPED");
        Traffic.send(producer, PREFIX + "requests.raw", laterNow);
        Topics.readAtLeast(
            kafka.bootstrapServers(),
            PREFIX + "session.deltas",
            first.size() + laterNow.size(),
            Duration.ofMinutes(2));
        Ledger ledger =
            Ledger.take(
                    "17 erase during sink lag (topic, before)",
                    kafka,
                    PREFIX,
                    first.size() + laterNow.size(),
                    Duration.ofMinutes(2))
                .print();
        ledger.assertLossless(first.size() + laterNow.size());
        assertThat(rowsBySession(archive)).containsEntry(erasedWhileWaiting, 2L);

        // and a session is erased while the sink is stopped; the sink resumes 8 s into the erase
        EmbeddedArchive sink = archive;
        CompletableFuture<Void> resume = new CompletableFuture<>();
        // A thread of its own: the common pool has one thread on a two-core machine.
        Thread resumer =
            new Thread(
                () -> {
                  try {
                    Thread.sleep(8000);
                    setConnectors(sink, "resume", "RUNNING");
                    resume.complete(null);
                  } catch (Throwable e) {
                    resume.completeExceptionally(e);
                  }
                },
                "resume-connectors");
        resumer.start();
        int code = erase(kafka, args(List.of("--session", erasedWhileWaiting), archiveArgs));
        System.err.println(java.time.Instant.now() + " erase returned " + code);
        resume.get(14, TimeUnit.MINUTES);
        String report = out();
        System.out.println(report);

        // Then: it waited for the sink, and once the sink has caught up, no row of that session
        // is left in the archive
        assertThat(code).as(report + err()).isEqualTo(Command.OK);
        Map<String, Long> rows = awaitKeptRows(archive, erased, keptTurns);
        assertThat(rows).doesNotContainKey(erasedWhileWaiting);
        assertThat(check(kafka, archiveArgs, erasedWhileWaiting))
            .contains("archive: no row of theirs")
            .doesNotContain("sink behind");

        // When: the sink is stopped again, the held-back turn comes, and the other session is
        // erased with a sink timeout shorter than the stop
        setConnectors(archive, "stop", "STOPPED");
        Traffic.send(producer, PREFIX + "requests.raw", List.of(heldBack));
        Topics.readAtLeast(
            kafka.bootstrapServers(), PREFIX + "session.deltas", all.size(), Duration.ofMinutes(2));
        out.reset();
        code =
            erase(
                kafka,
                args(List.of("--session", erasedAfterTimeout, "--sink-timeout", "5"), archiveArgs));
        report = out();
        System.out.println(report);

        // Then: it says the sink is behind and fails, and so does the check, rather than pass
        assertThat(code).as(report + err()).isEqualTo(Command.FAILED);
        assertThat(report).contains("sink behind");
        String pending = check(kafka, archiveArgs, erasedAfterTimeout);
        assertThat(pending).contains("pending: sink behind");

        // When: the sink resumes and catches up, and the erasure is run again
        setConnectors(archive, "resume", "RUNNING");
        awaitKeptRows(archive, erased, keptTurns);
        out.reset();
        code = erase(kafka, args(List.of("--session", erasedAfterTimeout), archiveArgs));
        report = out();
        System.out.println(report);

        // Then: no row of either session is left, every other turn is archived once and rebuilds
        // from the archive, and the dead letters hold nothing of the erased sessions
        assertThat(code).as(report + err()).isEqualTo(Command.OK);
        assertThat(check(kafka, archiveArgs, erasedWhileWaiting, erasedAfterTimeout))
            .contains("archive: no row of theirs")
            .doesNotContain("sink behind");
        rows = rowsBySession(archive);
        assertThat(rows).doesNotContainKeys(erasedWhileWaiting, erasedAfterTimeout);
        Map<String, Long> perRequest = rowsByRequest(archive);
        long duplicates = perRequest.values().stream().mapToLong(n -> n - 1).sum();
        long[] rebuilt = rebuiltFromArchive(archive);
        System.err.printf(
            "fault scenario %-44s events in %5d, distinct requests %5d, deltas %5d, rebuilt %5d,"
                + " mismatches %d, duplicates %d, erased sessions' rows %d, their dead letters"
                + " %d%n",
            "17 erase during sink lag (archive, after)",
            all.size(),
            perRequest.size(),
            rows.values().stream().mapToLong(Long::longValue).sum(),
            rebuilt[0],
            rebuilt[1],
            duplicates,
            rows.getOrDefault(erasedWhileWaiting, 0L) + rows.getOrDefault(erasedAfterTimeout, 0L),
            lettersOf(kafka, erasedWhileWaiting).size());
        assertThat(perRequest).hasSize((int) keptTurns);
        assertThat(duplicates).isZero();
        assertThat(rebuilt[0]).isEqualTo(keptTurns);
        assertThat(rebuilt[1]).isZero();
        assertThat(lettersOf(kafka, erasedWhileWaiting)).isEmpty();
        List<ConsumerRecord<String, byte[]>> keptAfter = lettersOf(kafka, keptSession);
        assertThat(keptAfter).hasSize(1);
        assertThat(keptAfter.get(0).value()).isEqualTo(keptLetters.get(0).value());
        assertThat(keptAfter.get(0).timestamp()).isEqualTo(keptLetters.get(0).timestamp());
      } finally {
        if (archive != null) {
          archive.close();
        }
      }
    }
  }

  // --- helpers ---

  /** The first half of one of the session's captures: invalid JSON, a dead letter. */
  private static byte[] damaged(List<Event> events, String session) {
    byte[] value =
        events.stream().filter(e -> e.sessionKey().equals(session)).findFirst().get().value();
    return Arrays.copyOf(value, value.length / 2);
  }

  private static String[] args(List<String> first, String[] archiveArgs) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(archiveArgs));
    return all.toArray(String[]::new);
  }

  private int erase(KafkaBroker kafka, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--topic-prefix",
            PREFIX,
            "--application-id",
            APP));
    return new EraseCommand(terminal()).run(all.toArray(String[]::new));
  }

  /** {@code erase --check} of the sessions, its output (broker leftovers may await compaction). */
  private String check(KafkaBroker kafka, String[] archiveArgs, String... sessions) {
    out.reset();
    List<String> args = new ArrayList<>(List.of("--check"));
    for (String s : sessions) {
      args.add("--session");
      args.add(s);
    }
    args.addAll(List.of(archiveArgs));
    erase(kafka, args.toArray(String[]::new));
    String text = out();
    System.out.println(text);
    return text;
  }

  private static void awaitArchivedRows(EmbeddedArchive archive, long rows) throws Exception {
    await()
        .alias(rows + " archived delta rows")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> rowsBySession(archive).values().stream().mapToLong(Long::longValue).sum(),
            n -> n >= rows);
  }

  /**
   * Waits until the archive holds {@code kept} rows of the sessions not in {@code erased} (the sink
   * has caught up), then gives it two more commits, and returns the rows by session.
   */
  private static Map<String, Long> awaitKeptRows(
      EmbeddedArchive archive, Set<String> erased, long kept) throws Exception {
    await()
        .alias(kept + " archived rows of the sessions kept")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                rowsBySession(archive).entrySet().stream()
                    .filter(e -> !erased.contains(e.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum(),
            n -> n >= kept);
    Thread.sleep(5000);
    return rowsBySession(archive);
  }

  private static Map<String, Long> rowsBySession(EmbeddedArchive archive) throws Exception {
    Map<String, Long> rows = new TreeMap<>();
    try (ArchiveReader reader = ArchiveReader.open(archive.settings())) {
      if (reader.info(DELTAS_TABLE).isEmpty()) {
        return rows;
      }
      reader.read(
          DELTAS_TABLE,
          json ->
              rows.merge(Json.mapper().readTree(json).path("session_key").asText(), 1L, Long::sum));
    }
    return rows;
  }

  private static Map<String, Long> rowsByRequest(EmbeddedArchive archive) throws Exception {
    Map<String, Long> rows = new TreeMap<>();
    try (ArchiveReader reader = ArchiveReader.open(archive.settings())) {
      reader.read(
          DELTAS_TABLE,
          json -> {
            JsonNode row = Json.mapper().readTree(json);
            rows.merge(
                row.path("session_key").asText() + "|" + row.path("request_id").asText(),
                1L,
                Long::sum);
          });
    }
    return rows;
  }

  /** {@code reconstruct --archive}: turns rebuilt, checksum mismatches. */
  private long[] rebuiltFromArchive(EmbeddedArchive archive) {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    Terminal terminal =
        new Terminal(
            new PrintStream(report, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false);
    int code =
        new ReconstructCommand(terminal)
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
    String text = report.toString(StandardCharsets.UTF_8);
    assertThat(code).as(text + err()).isEqualTo(Command.OK);
    return new long[] {number(text, "turns"), number(text, "checksum mismatches")};
  }

  private static long number(String text, String label) {
    Matcher m = Pattern.compile("(?m)^\\s*" + label + "\\s+(\\d+)").matcher(text);
    assertThat(m.find()).as(label + " in:\n" + text).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static void awaitDeadLetters(KafkaBroker kafka, int count) {
    Topics.readAtLeast(kafka.bootstrapServers(), PREFIX + "dlq", count, Duration.ofMinutes(1));
  }

  private static List<ConsumerRecord<String, byte[]>> lettersOf(KafkaBroker kafka, String session) {
    return Topics.readAtLeast(kafka.bootstrapServers(), PREFIX + "dlq", 0, Duration.ofSeconds(30))
        .stream()
        .filter(r -> session.equals(r.key()) && r.value() != null)
        .toList();
  }

  /**
   * Stops or resumes every sink connector, and waits until they and their tasks are so. Stopped
   * rather than paused: with Connect 4.3 and the Iceberg sink 1.12, resuming a paused connector was
   * seen to interrupt the sink's coordinator in a commit, whose thread then exits (no commit after
   * that), and to block Connect's REST API. A stop returns at once, but the task's shutdown then
   * holds the standalone herder while the sink's coordinator terminates (up to a minute), so a
   * request made meanwhile waits: the timeouts are long.
   */
  private static void setConnectors(EmbeddedArchive archive, String action, String state) {
    try {
      trySetConnectors(archive, action, state);
    } catch (RuntimeException | AssertionError e) {
      try {
        List<String> log = java.nio.file.Files.readAllLines(archive.connect().logFile());
        System.err.println(
            String.join("\n", log.subList(Math.max(0, log.size() - 60), log.size())));
      } catch (java.io.IOException io) {
        e.addSuppressed(io);
      }
      throw e;
    }
  }

  /**
   * One connector at a time: four tasks starting at once on one SQLite catalog were seen to hang.
   */
  private static void trySetConnectors(EmbeddedArchive archive, String action, String state) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    String rest = archive.connect().restUrl();
    for (String name : archive.connect().connectors()) {
      HttpResponse<String> response =
          send(
              http,
              HttpRequest.newBuilder(URI.create(rest + "/connectors/" + name + "/" + action))
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(150))
                  .build());
      assertThat(response.statusCode()).as(response.body()).isIn(202, 204);
      await()
          .alias(name + " " + state)
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                JsonNode status =
                    Json.mapper()
                        .readTree(
                            send(
                                    http,
                                    HttpRequest.newBuilder(
                                            URI.create(rest + "/connectors/" + name + "/status"))
                                        .timeout(Duration.ofSeconds(150))
                                        .build())
                                .body());
                if (!state.equals(status.path("connector").path("state").asText())) {
                  return false;
                }
                if (state.equals("RUNNING") && status.path("tasks").isEmpty()) {
                  return false;
                }
                for (JsonNode task : status.path("tasks")) {
                  if (!state.equals(task.path("state").asText())) {
                    return false;
                  }
                }
                return true;
              });
    }
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest request) {
    try {
      long start = System.nanoTime();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      System.err.printf(
          "%s %s %s: %d in %d ms%n",
          java.time.Instant.now(),
          request.method(),
          request.uri().getPath(),
          response.statusCode(),
          (System.nanoTime() - start) / 1_000_000);
      return response;
    } catch (Exception e) {
      throw new IllegalStateException("Connect's REST API: " + request.uri(), e);
    }
  }

  private Terminal terminal() {
    return new Terminal(
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        new HashMap<>(),
        false);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }
}
