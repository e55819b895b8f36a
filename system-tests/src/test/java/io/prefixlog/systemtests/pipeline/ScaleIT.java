package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Horizontal scale (issue 6): the stream app runs as several instances of one application id on one
 * broker and they split the input partitions; while a replay is being sent, one instance is
 * SIGKILLed and another one added. Every body still rebuilds and there is exactly one delta per raw
 * event — the instances hand partitions over through the changelogs and exactly-once commits.
 */
@ExtendWith(KafkaExtension.class)
class ScaleIT {
  private static final String PREFIX = "scale.";
  private static final String APPLICATION_ID = "scale-app";
  private static final int PARTITIONS = 6;

  /** Conversations per corpus file: all agentic ones (200 at most) and about 480 chat turns. */
  private static final int CONVERSATIONS = 200;

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldRebuildEveryBodyOnceWhileAnInstanceIsKilledAndAnotherAddedMidReplay(KafkaCluster kafka)
      throws Exception {
    // Given: three instances sharing the work of six input partitions
    assertThat(CONVERSATIONS).isGreaterThanOrEqualTo(Pipeline.allAgenticConversations());
    long events = Pipeline.expectedEvents(CONVERSATIONS);
    Pipeline.createTopics(kafka, settings(kafka, "unused"));
    List<ChildProcess> instances = new ArrayList<>();
    try (Admin admin =
        Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()))) {
      for (String name : List.of("one", "two", "three")) {
        instances.add(Pipeline.streamApp(dir, settings(kafka, name), name));
      }
      awaitMembersSharingTheInput(admin, 3, instances);

      // When: the replay runs (rate-limited so that it outlasts the changes below), one instance
      // is SIGKILLed once deltas are being committed, and a fourth joins
      CompletableFuture<Void> replay =
          CompletableFuture.runAsync(
              () -> {
                try {
                  Pipeline.replay(kafka, PREFIX, CONVERSATIONS, "--rate", "120");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      Pipeline.awaitCommitted(kafka, PREFIX + "session.deltas", events / 10, instances.get(0));
      ChildProcess killed = instances.get(1);
      ProcessHandle.of(killed.pid()).orElseThrow().destroyForcibly();
      assertThat(killed.waitFor(Duration.ofSeconds(30))).hasValue(137);
      long committedAtKill = Topics.countNow(kafka.bootstrapServers(), PREFIX + "session.deltas");
      boolean replayRunningAtKill = !replay.isDone();
      instances.add(Pipeline.streamApp(dir, settings(kafka, "four"), "four"));
      List<ChildProcess> live = List.of(instances.get(0), instances.get(2), instances.get(3));
      awaitMembersSharingTheInput(admin, 3, live);
      boolean replayRunningAtJoin = !replay.isDone();
      replay.get(4, TimeUnit.MINUTES);

      // Then
      assertThat(replayRunningAtKill).as("the replay was still sending at the kill").isTrue();
      assertThat(committedAtKill).isBetween(1L, events - 1);
      Pipeline.assertExactlyOnceAndLossless(kafka, PREFIX, events);
      assertThat(live)
          .allSatisfy(i -> assertThat(i.isAlive()).as("log:\n%s", i.logTail(40)).isTrue());
      // Reported, not asserted: on a loaded machine the group may settle after the last send.
      System.err.printf(
          "ScaleIT: %d events, %d deltas committed at the kill, replay still sending when the"
              + " fourth instance had partitions: %s%n",
          events, committedAtKill, replayRunningAtJoin);
    } finally {
      instances.forEach(ChildProcess::close);
    }
  }

  private Map<String, String> settings(KafkaCluster kafka, String name) {
    Map<String, String> settings =
        new HashMap<>(
            Pipeline.settings(
                kafka, PREFIX, APPLICATION_ID, dir.resolve("state-" + name), PARTITIONS));
    // A SIGKILLed member leaves the group when its session times out: 6 s (the broker's
    // minimum) instead of 45 s, so that its partitions move on while the replay still runs.
    settings.put("PREFIXLOG_KAFKA_SESSION_TIMEOUT_MS", "6000");
    settings.put("PREFIXLOG_KAFKA_HEARTBEAT_INTERVAL_MS", "1500");
    return settings;
  }

  /**
   * Waits until the group has exactly {@code count} members and every input partition is assigned
   * to one of them, each member holding some.
   */
  private static void awaitMembersSharingTheInput(
      Admin admin, int count, List<ChildProcess> instances) {
    AtomicReference<String> last = new AtomicReference<>("no group yet");
    try {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> membersShareTheInput(admin, count, instances, last));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          count + " members sharing " + PARTITIONS + " partitions; last seen: " + last.get(), e);
    }
  }

  private static boolean membersShareTheInput(
      Admin admin, int count, List<ChildProcess> instances, AtomicReference<String> last)
      throws Exception {
    for (ChildProcess instance : instances) {
      assertThat(instance.isAlive()).as("instance alive; log:\n%s", instance.logTail(40)).isTrue();
    }
    ConsumerGroupDescription group;
    try {
      group =
          admin
              .describeConsumerGroups(List.of(APPLICATION_ID))
              .describedGroups()
              .get(APPLICATION_ID)
              .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return false; // no member has joined yet
      }
      throw e;
    }
    List<Set<TopicPartition>> inputs =
        group.members().stream()
            .map(MemberDescription::assignment)
            .map(
                a ->
                    a.topicPartitions().stream()
                        .filter(tp -> tp.topic().equals(PREFIX + "requests.raw"))
                        .collect(Collectors.toSet()))
            .toList();
    Set<Integer> covered =
        inputs.stream()
            .flatMap(Set::stream)
            .map(TopicPartition::partition)
            .collect(Collectors.toSet());
    last.set(group.groupState() + " " + inputs);
    return inputs.size() == count
        && covered.size() == PARTITIONS
        && inputs.stream().noneMatch(Set::isEmpty);
  }
}
