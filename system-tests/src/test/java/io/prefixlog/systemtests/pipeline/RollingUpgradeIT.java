package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.upgrade.FormatGenerations;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rolling upgrades and a rollback of the stream app in a group that mixes builds: instances of the
 * previous build ({@link PreviousBuild#BASELINE}, checked out and built from git) and of this one
 * share one application id, four state partitions and one stream thread each, so both own tasks,
 * while multi-turn sessions from the bundled corpora keep arriving. Every restart is a SIGTERM and
 * a start on the same state directory, as an orchestrator rolls a deployment.
 *
 * <p>The traffic holds retries and resends ({@link Traffic#withRetriesAndResends}): after every
 * seventh event a gateway's retry of it, a capture of its own as the capture proxy writes one (its
 * own request and capture id, the client's id beside them), and now and then an exact resend of an
 * event sent thirty events (a phase) earlier, which a task that has moved since may have stored.
 * Builds before capture ids dedup by request id alone, and the capture proxy's request id is its
 * capture id, so every member of the group stores each capture once and drops each resend.
 *
 * <p>After every phase the group is awaited stable with the expected owners, and further traffic
 * until the deltas topic holds a delta for each capture sent; at the end: every instance stopped
 * only by the test (SIGTERM's exit status), no stream thread failed in any (their logs), no dead
 * letter, exactly one committed delta per capture (none for a resend), and every turn rebuilt byte
 * for byte ({@link Ledger}, which prints the scenario's line).
 */
@ExtendWith(KafkaExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RollingUpgradeIT {
  private static final int STATE_PARTITIONS = 4;

  /**
   * Events sent, and stored, after a phase's group is stable: traffic that phase's builds handle.
   */
  private static final int EVENTS_PER_PHASE = 30;

  private static final Duration SEND_INTERVAL = Duration.ofMillis(250);

  /**
   * What a stream app's log holds when a stream thread failed, in either build: the app's
   * uncaught-exception handler's line, Kafka Streams' line as it replaces the thread or shuts the
   * client down, or a failed start. Not every ERROR line is one: Kafka Streams logs a task it
   * re-initializes from its changelog (a {@code TaskCorruptedException}, part of exactly-once's
   * recovery, which runs on the same thread) at ERROR too.
   */
  private static final Pattern THREAD_FAILURE =
      Pattern.compile(
          "stream thread failed|Replacing thread in the streams uncaught exception handler"
              + "|Encountered the following exception during processing|failed to start");

  /** SIGTERM's exit status: the instance stopped when told to, not on its own. */
  private static final int STOPPED_BY_SIGTERM = 143;

  private static PreviousBuild previous;

  @TempDir Path dir;

  @BeforeAll
  static void buildThePreviousBuild() throws Exception {
    previous = PreviousBuild.of(PreviousBuild.BASELINE);
  }

  @Test
  @Order(1)
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void shouldRollToThisBuildAndThenToItsFormatsStoringEveryTurnOnce(KafkaCluster kafka)
      throws Exception {
    // Given: two instances of the previous build, traffic flowing
    try (Group group = new Group(kafka, "ru1.", "ru1-app", Traffic.of(60, now(), 1000))) {
      group.start("a", Build.PREVIOUS);
      group.start("b", Build.PREVIOUS);
      group.phase("both on the previous build", Set.of("a", "b"));

      // When: a rolled to this build writing the old formats; b bounced, so that its tasks go to
      // a and come back; b rolled; then both rolled again without PREFIXLOG_UPGRADE_FROM
      group.restart("a", Build.THIS_WRITING_THE_PREVIOUS_FORMATS);
      group.phase("a on this build with PREFIXLOG_UPGRADE_FROM", Set.of("a", "b"));
      group.stop("b");
      group.phase("b (previous) stopped: a holds every task", Set.of("a"));
      group.start("b", Build.PREVIOUS);
      group.phase("b (previous) back: tasks moved back to it", Set.of("a", "b"));
      group.restart("b", Build.THIS_WRITING_THE_PREVIOUS_FORMATS);
      group.phase("b on this build with PREFIXLOG_UPGRADE_FROM", Set.of("a", "b"));
      group.restart("a", Build.THIS);
      group.phase("a on this build, newest formats", Set.of("a", "b"));
      group.restart("b", Build.THIS);
      group.phase("b on this build, newest formats", Set.of("a", "b"));

      // Then
      group.assertEveryTurnStoredOnceAndNothingFailed("rolling upgrade");
    }
  }

  @Test
  @Order(2)
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void shouldRollBackToThePreviousBuildWhileThisOneWritesItsFormats(KafkaCluster kafka)
      throws Exception {
    // Given: both instances rolled to this build with PREFIXLOG_UPGRADE_FROM
    try (Group group = new Group(kafka, "ru2.", "ru2-app", Traffic.of(40, now(), 1000))) {
      group.start("a", Build.PREVIOUS);
      group.start("b", Build.PREVIOUS);
      group.phase("both on the previous build", Set.of("a", "b"));
      group.restart("a", Build.THIS_WRITING_THE_PREVIOUS_FORMATS);
      group.phase("a on this build with PREFIXLOG_UPGRADE_FROM", Set.of("a", "b"));
      group.restart("b", Build.THIS_WRITING_THE_PREVIOUS_FORMATS);
      group.phase("b on this build with PREFIXLOG_UPGRADE_FROM", Set.of("a", "b"));

      // When: rolled back, one at a time
      group.restart("a", Build.PREVIOUS);
      group.phase("a rolled back", Set.of("a", "b"));
      group.restart("b", Build.PREVIOUS);
      group.phase("b rolled back", Set.of("a", "b"));

      // Then
      group.assertEveryTurnStoredOnceAndNothingFailed("rollback");
    }
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  /** Which build an instance runs, and how. */
  private enum Build {
    PREVIOUS,
    THIS_WRITING_THE_PREVIOUS_FORMATS,
    THIS
  }

  /**
   * The instances of one application id, its traffic and its account: starts and stops instances,
   * waits out each phase and prints how long it took.
   */
  private final class Group implements AutoCloseable {
    private final KafkaCluster kafka;
    private final String prefix;
    private final String applicationId;
    private final AppGroup broker;
    private final Traffic.WithRepeats planned;
    private final Map<String, ChildProcess> running = new LinkedHashMap<>();
    private final List<ChildProcess> started = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private SteadyTraffic traffic;
    private long phaseNanos = System.nanoTime();
    private int starts;

    Group(KafkaCluster kafka, String prefix, String applicationId, Traffic traffic)
        throws Exception {
      this.kafka = kafka;
      this.prefix = prefix;
      this.applicationId = applicationId;
      this.planned = Traffic.withRetriesAndResends(traffic.interleaved(), 7, EVENTS_PER_PHASE);
      Pipeline.createTopics(kafka, settings("a"));
      this.broker = new AppGroup(kafka, applicationId, prefix + "session.deltas");
    }

    private Map<String, String> settings(String instance) {
      Map<String, String> settings =
          new HashMap<>(
              Pipeline.settings(
                  kafka,
                  prefix,
                  applicationId,
                  dir.resolve("state-" + instance),
                  STATE_PARTITIONS));
      // The member's client id names the instance in the group, whichever build runs it.
      settings.put("PREFIXLOG_KAFKA_CLIENT_ID", clientId(instance));
      // A stopped instance's member leaves the group in seconds, not the default 45.
      settings.put("PREFIXLOG_KAFKA_SESSION_TIMEOUT_MS", "6000");
      settings.put("PREFIXLOG_KAFKA_HEARTBEAT_INTERVAL_MS", "1500");
      return settings;
    }

    private String clientId(String instance) {
      return applicationId + "-" + instance;
    }

    void start(String instance, Build build) throws Exception {
      Map<String, String> settings = settings(instance);
      String name = applicationId + "-" + instance + "-" + (++starts) + "-" + build;
      ChildProcess app =
          switch (build) {
            case PREVIOUS ->
                Pipeline.streamApp(
                    dir, settings, name, StreamApp.class.getName(), previous.classpath());
            case THIS_WRITING_THE_PREVIOUS_FORMATS -> {
              settings.put(
                  "PREFIXLOG_UPGRADE_FROM", Integer.toString(FormatGenerations.UNREGISTERED));
              yield Pipeline.streamApp(dir, settings, name);
            }
            case THIS -> Pipeline.streamApp(dir, settings, name);
          };
      running.put(instance, app);
      started.add(app);
    }

    /** SIGTERM, as an orchestrator stops an instance; it must have been running until then. */
    void stop(String instance) throws InterruptedException {
      ChildProcess app = running.remove(instance);
      assertThat(app.isAlive())
          .as("%s alive until stopped; log:%n%s", app, app.logTail(40))
          .isTrue();
      app.close();
      assertThat(app.waitFor(Duration.ofSeconds(30)))
          .as("%s's exit status; log:%n%s", app, app.logTail(40))
          .hasValue(STOPPED_BY_SIGTERM);
    }

    void restart(String instance, Build build) throws Exception {
      stop(instance);
      start(instance, build);
    }

    /**
     * Waits until {@code owners} alone own the state partitions, then until {@link
     * #EVENTS_PER_PHASE} more events have been sent and every event sent by then is stored.
     */
    void phase(String name, Set<String> owners) {
      broker.awaitOwners(
          owners.stream().map(this::clientId).collect(Collectors.toSet()),
          STATE_PARTITIONS,
          List.copyOf(running.values()));
      if (traffic == null) {
        traffic =
            new SteadyTraffic(kafka, prefix + "requests.raw", planned.events(), SEND_INTERVAL);
      }
      int target = traffic.sent() + EVENTS_PER_PHASE;
      await()
          .alias(EVENTS_PER_PHASE + " more events sent in phase '" + name + "'")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> traffic.sent() >= target || traffic.exhausted());
      assertThat(traffic.sent())
          .as("events sent by the end of phase '%s' (the traffic ran out: send more)", name)
          .isGreaterThanOrEqualTo(target);
      broker.awaitCommittedDeltas(planned.distinct(target), List.copyOf(running.values()));
      long now = System.nanoTime();
      System.err.printf(
          "%s %-55s %5.1f s, %4d events sent%n",
          applicationId, name, (now - phaseNanos) / 1e9, traffic.sent());
      phaseNanos = now;
    }

    void assertEveryTurnStoredOnceAndNothingFailed(String scenario) throws Exception {
      int sent = traffic.stop();
      int distinct = planned.distinct(sent);
      for (String instance : List.copyOf(running.keySet())) {
        stop(instance);
      }
      Ledger ledger = Ledger.take(scenario, kafka, prefix, distinct, Duration.ofMinutes(2)).print();
      List<ConsumerRecord<String, byte[]>> deltas =
          Topics.readAtLeast(
              kafka.bootstrapServers(), prefix + "session.deltas", distinct, Duration.ofMinutes(1));
      long retries =
          planned.events().subList(0, sent).stream()
              .filter(e -> e.requestId().endsWith("~retry"))
              .count();
      System.err.printf(
          "%s: %d instances started, %d events sent (%d retries, %d resends), %.0f s in all%n",
          scenario,
          started.size(),
          sent,
          retries,
          sent - distinct,
          (System.nanoTime() - startNanos) / 1e9);
      ledger.assertLossless(distinct);
      assertThat(sent - distinct).as("resends sent").isPositive();
      assertThat(retries).as("retries sent").isPositive();
      assertThat(deltas)
          .as("committed delta records, rewrites of a key included")
          .hasSize(distinct);
      assertThat(ledger.deadLetters).as("dead letters by reason").isEmpty();
      for (ChildProcess app : started) {
        assertThat(threadFailures(app)).as("thread failures in %s", app.logFile()).isEmpty();
      }
    }

    private List<String> threadFailures(ChildProcess app) throws Exception {
      return Files.readAllLines(app.logFile(), StandardCharsets.UTF_8).stream()
          .filter(line -> THREAD_FAILURE.matcher(line).find())
          .toList();
    }

    @Override
    public void close() {
      if (traffic != null) {
        traffic.close();
      }
      running.values().forEach(ChildProcess::close);
      broker.close();
    }
  }
}
