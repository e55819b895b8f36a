package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.streams.topology.PrefixlogTopology;
import io.prefixlog.streams.upgrade.GroupGuard;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A stream app's consumer group as the broker sees it: which instance (client id) owns which
 * partitions of the session state; and how many deltas have been committed. Instances are told
 * apart by the {@code PREFIXLOG_KAFKA_CLIENT_ID} each is given.
 */
final class AppGroup implements AutoCloseable {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaCluster kafka;
  private final Admin admin;
  private final String applicationId;
  private final String stateTopic;
  private final String deltasTopic;
  private KafkaConsumer<byte[], byte[]> deltas;
  private long deltasSeen;

  AppGroup(KafkaCluster kafka, String applicationId, String deltasTopic) {
    this.kafka = kafka;
    this.admin = Admin.create(kafka.clientConfig());
    this.applicationId = applicationId;
    this.deltasTopic = deltasTopic;
    this.stateTopic = applicationId + "-" + PrefixlogTopology.REQUESTS_BY_SESSION + "-repartition";
  }

  /**
   * The state partitions each member's instance owns, when the group is stable; an empty map while
   * it rebalances (or before it exists).
   */
  Map<String, Integer> stateOwners() throws Exception {
    Map<String, Integer> owners = new TreeMap<>();
    ConsumerGroupDescription group;
    try {
      group =
          admin
              .describeConsumerGroups(List.of(applicationId))
              .describedGroups()
              .get(applicationId)
              .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return owners; // no member has joined yet
      }
      throw e;
    }
    if (group.groupState() != GroupState.STABLE) {
      return owners;
    }
    for (MemberDescription member : group.members()) {
      int owned =
          (int)
              member.assignment().topicPartitions().stream()
                  .filter(p -> p.topic().equals(stateTopic))
                  .count();
      owners.merge(GroupGuard.instanceOf(member.clientId()), owned, Integer::sum);
    }
    return owners;
  }

  /**
   * Waits until the group is stable with exactly {@code owners} as members (a stopped instance's
   * member gone), each owning at least one of the {@code partitions} state partitions and together
   * all of them.
   */
  void awaitOwners(Set<String> owners, int partitions, List<ChildProcess> running) {
    await()
        .alias("the state partitions owned by " + owners + " alone")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              assertRunning(running);
              return stateOwners();
            },
            owned ->
                owned.keySet().equals(owners)
                    && owned.values().stream().allMatch(n -> n > 0)
                    && owned.values().stream().mapToInt(Integer::intValue).sum() == partitions);
  }

  /** How many committed records the deltas topic holds (read on from where the last call ended). */
  long committedDeltas() {
    if (deltas == null) {
      Map<String, Object> config = new HashMap<>(kafka.clientConfig());
      config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 40 << 20);
      config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 40 << 20);
      deltas =
          new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> partitions =
          deltas.partitionsFor(deltasTopic).stream()
              .map(p -> new TopicPartition(deltasTopic, p.partition()))
              .toList();
      deltas.assign(partitions);
      deltas.seekToBeginning(partitions);
    }
    Set<TopicPartition> partitions = deltas.assignment();
    Map<TopicPartition, Long> end = deltas.endOffsets(partitions);
    while (partitions.stream().anyMatch(p -> deltas.position(p) < end.get(p))) {
      deltasSeen += deltas.poll(Duration.ofMillis(200)).count();
    }
    return deltasSeen;
  }

  /** Waits until the deltas topic holds {@code count} committed records. */
  void awaitCommittedDeltas(long count, List<ChildProcess> running) {
    await()
        .alias(count + " committed deltas")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .pollInSameThread()
        .until(
            () -> {
              assertRunning(running);
              return committedDeltas();
            },
            n -> n >= count);
  }

  private static void assertRunning(List<ChildProcess> running) {
    for (ChildProcess app : running) {
      assertThat(app.isAlive()).as("%s alive; log:%n%s", app, app.logTail(40)).isTrue();
    }
  }

  @Override
  public void close() {
    if (deltas != null) {
      deltas.close();
    }
    admin.close();
  }
}
