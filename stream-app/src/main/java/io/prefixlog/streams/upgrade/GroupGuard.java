package io.prefixlog.streams.upgrade;

import io.prefixlog.schemas.json.JsonSerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses to start an instance whose topology differs from that of the group's running members, or
 * whose formats they cannot share, before it joins; then records its own registration for the
 * instances that start after it.
 *
 * <p>Why the app checks this itself: Kafka Streams' classic rebalance protocol does not. A member's
 * subscription carries its process id, endpoint, task offsets and client tags, not its topology;
 * the group leader computes every task from its own topology and hands out task ids, which each
 * member runs with whatever sub-topology it has under that id. A member with a node or store added
 * joins silently and runs its topology next to the others'. The streams rebalance protocol
 * (KIP-1071, {@code group.protocol=streams}) does compare: the broker keeps the topology of the
 * first member and rejects a member with another at the same topology epoch. But it keeps that
 * topology for as long as the group exists, so the app could then change its topology only under a
 * new application id, and a group cannot mix the two protocols, so builds on the classic protocol
 * could not be rolled onto it.
 *
 * <p>The record: a compacted topic, {@code <application id>-topology}, one partition, one {@link
 * Registration} per instance under its client id, removed (a tombstone) when the instance closes.
 * The live members are those {@link Admin#describeConsumerGroups} lists; a member's client id is
 * its instance's followed by {@code -StreamThread-N-consumer}. A member that has stopped stays
 * listed until its session times out, but its registration is gone, so it holds no one back.
 *
 * <p>What it does not catch: two instances with different topologies started at the same moment,
 * each checking before the other has joined. Upgrades and scale-outs start instances one at a time,
 * and every later start is checked.
 */
public final class GroupGuard {
  private static final Logger LOGGER = LoggerFactory.getLogger(GroupGuard.class);
  private static final JsonSerde<Registration> SERDE = JsonSerde.of(Registration.class);
  private static final Pattern STREAM_THREAD_MEMBER =
      Pattern.compile("(.*)-StreamThread-\\d+-consumer");

  private final String applicationId;
  private final Registration self;
  private final Map<String, Object> clientConfig;
  private final short replicationFactor;
  private final Duration timeout;
  private boolean registered;

  /**
   * @param applicationId the group
   * @param instance this instance's client id
   * @param topology this instance's topology
   * @param reads the newest format generation this build reads
   * @param writes the generation it writes
   * @param clientConfig bootstrap servers and the pass-through client settings (security)
   * @param replicationFactor of the registrations topic when this instance creates it
   * @param timeout for each exchange with the broker
   */
  public GroupGuard(
      String applicationId,
      String instance,
      TopologyFingerprint topology,
      FormatGeneration reads,
      FormatGeneration writes,
      Map<String, ?> clientConfig,
      short replicationFactor,
      Duration timeout) {
    this.applicationId = Objects.requireNonNull(applicationId, "applicationId");
    this.self =
        new Registration(
            instance,
            topology.fingerprint(),
            topology.names(),
            reads.number(),
            writes.number(),
            System.currentTimeMillis());
    this.clientConfig = Map.copyOf(clientConfig);
    this.replicationFactor = replicationFactor;
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /** The topic of the registrations of the instances of {@code applicationId}. */
  public static String topic(String applicationId) {
    return applicationId + "-topology";
  }

  /**
   * The instance of a group member: its client id without Kafka Streams' thread suffix.
   *
   * @param memberClientId a member's client id, as {@link MemberDescription#clientId()} gives it
   */
  public static String instanceOf(String memberClientId) {
    Matcher m = STREAM_THREAD_MEMBER.matcher(memberClientId);
    return m.matches() ? m.group(1) : memberClientId;
  }

  /**
   * Checks this instance against the group's live members and registers it.
   *
   * @throws IncompatibleGroupException when a member runs another topology or formats cannot be
   *     shared; nothing is registered then
   * @throws IllegalStateException when the broker does not answer within the timeout
   */
  public synchronized void checkAndRegister(Admin admin) throws InterruptedException {
    try {
      createTopic(admin);
      Set<String> live = liveInstances(admin);
      Map<String, Registration> registrations = readRegistrations();
      GroupCompatibility.Verdict verdict = GroupCompatibility.judge(self, live, registrations);
      for (String instance : verdict.unregistered()) {
        LOGGER
            .atWarn()
            .setMessage(
                "a running member has no topology registration (a build from before"
                    + " registrations): its topology cannot be compared")
            .addKeyValue("applicationId", applicationId)
            .addKeyValue("member", instance)
            .addKeyValue("topology", self.fingerprint())
            .log();
      }
      if (!verdict.allowed()) {
        throw new IncompatibleGroupException(refusal(verdict));
      }
      send(self);
      registered = true;
      LOGGER
          .atInfo()
          .setMessage("topology registered")
          .addKeyValue("applicationId", applicationId)
          .addKeyValue("instance", self.instance())
          .addKeyValue("topology", self.fingerprint())
          .addKeyValue("liveMembers", live.size())
          .addKeyValue("writesGeneration", self.writesGeneration())
          .log();
    } catch (ExecutionException
        | TimeoutException
        | org.apache.kafka.common.errors.TimeoutException e) {
      throw new IllegalStateException(
          "cannot check this instance against the group '"
              + applicationId
              + "' (topic "
              + topic(applicationId)
              + ") within "
              + timeout.toSeconds()
              + " s: "
              + (e.getCause() == null ? e : e.getCause()),
          e);
    }
  }

  /** Removes this instance's registration (a tombstone); idempotent. */
  public synchronized void deregister() {
    if (!registered) {
      return;
    }
    registered = false;
    try {
      send(null);
    } catch (ExecutionException | TimeoutException e) {
      // The instance stops either way; the registration then stays until an instance with the
      // same client id registers, and a member that is gone holds no one back.
      LOGGER
          .atWarn()
          .setMessage("cannot remove the topology registration")
          .addKeyValue("topic", topic(applicationId))
          .addKeyValue("instance", self.instance())
          .setCause(e)
          .log();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String refusal(GroupCompatibility.Verdict verdict) {
    StringBuilder message =
        new StringBuilder("refusing to join the group of application id '")
            .append(applicationId)
            .append("': ")
            .append(String.join("; ", verdict.refusals()))
            .append('.');
    if (verdict.topologyDiffers()) {
      message.append(
          " Kafka Streams would let this instance join and run the tasks of both topologies side"
              + " by side. To change the topology, stop every instance of the running one, then"
              + " start the new build (or deploy it under another PREFIXLOG_APPLICATION_ID); to"
              + " add an instance, give it the members' build and the settings that shape the"
              + " topology (PREFIXLOG_TOPIC_PREFIX, PREFIXLOG_CHUNK_LOOKUPS_ENABLED,"
              + " PREFIXLOG_KV_INDEX_ENABLED).");
    }
    return message.toString();
  }

  private void createTopic(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    NewTopic topic =
        new NewTopic(topic(applicationId), 1, replicationFactor)
            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
    try {
      admin.createTopics(List.of(topic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }

  private Set<String> liveInstances(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> live = new HashSet<>();
    try {
      admin
          .describeConsumerGroups(List.of(applicationId))
          .describedGroups()
          .get(applicationId)
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .members()
          .forEach(member -> live.add(instanceOf(member.clientId())));
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof GroupIdNotFoundException)) {
        throw e;
      }
    }
    return live;
  }

  private Map<String, Registration> readRegistrations() throws TimeoutException {
    Map<String, Object> config = new HashMap<>(clientConfig);
    config.keySet().retainAll(ConsumerConfig.configNames());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, self.instance() + "-topology-check");
    Map<String, Registration> registrations = new HashMap<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic(applicationId), timeout)
          .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p, timeout) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(
              "the registrations on " + topic(applicationId) + " were not read to their end");
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          read(record, registrations);
        }
      }
    }
    return registrations;
  }

  private static void read(
      ConsumerRecord<String, byte[]> record, Map<String, Registration> registrations) {
    if (record.key() == null) {
      return; // not a registration: they are all keyed by instance
    }
    if (record.value() == null) {
      registrations.remove(record.key());
      return;
    }
    try {
      registrations.put(record.key(), SERDE.fromBytes(record.value()));
    } catch (RuntimeException e) {
      // A registration this build cannot read counts as none: the member is then named as one
      // whose topology cannot be compared.
      registrations.remove(record.key());
      LOGGER
          .atWarn()
          .setMessage("unreadable topology registration")
          .addKeyValue("topic", record.topic())
          .addKeyValue("partition", record.partition())
          .addKeyValue("offset", record.offset())
          .setCause(e)
          .log();
    }
  }

  private void send(Registration registration)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, Object> config = new HashMap<>(clientConfig);
    config.keySet().retainAll(ProducerConfig.configNames());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.CLIENT_ID_CONFIG, self.instance() + "-topology-registration");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
    config.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  topic(applicationId),
                  self.instance(),
                  registration == null ? null : SERDE.toBytes(registration)))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** The client settings of the guard's admin, consumer and producer: bootstrap plus security. */
  public static Map<String, Object> clientConfig(String bootstrap, Map<String, String> kafka) {
    Map<String, Object> config = new HashMap<>(kafka);
    config.keySet().retainAll(AdminClientConfig.configNames());
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return config;
  }
}
