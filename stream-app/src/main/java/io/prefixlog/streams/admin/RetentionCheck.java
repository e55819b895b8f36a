package io.prefixlog.streams.admin;

import io.prefixlog.schemas.Topic;
import io.prefixlog.schemas.Topic.CleanupPolicy;
import io.prefixlog.schemas.Topic.Role;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamAppConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Checks at start that each of the app's topics that exists is bounded in time the way the app
 * relies on. {@link TopicCreator} creates an absent topic with its cleanup policy and retention,
 * but leaves an existing one as it is (created by hand, by another tool or an earlier deployment,
 * or tuned since), so without this check a topic that grows for years, or a guarantee that its
 * retention breaks, showed only when the disks filled or a rebuild failed.
 *
 * <p>Refused, each named with its effective setting:
 *
 * <ul>
 *   <li>a topic the app creates with {@code delete} in its policy (every topic but the KV index and
 *       the source statistics) whose {@code cleanup.policy} lacks it: nothing deletes its records.
 *       The compacted outputs' keys are unique ({@code session_key/chain/seq}, a sampled-out
 *       request's {@code session_key/ts/request_id}), so compaction alone never shrinks them;
 *   <li>such a topic with {@code retention.ms} negative (kept forever);
 *   <li>an output keyed by turn ({@code session.deltas}, {@code requests.metadata}, {@code
 *       chunk.lookups}) kept longer than {@code PREFIXLOG_SESSION_SEQ_RETENTION}: a session's new
 *       chain could then begin while its older chain's records are kept, and an 8-digit chain id
 *       could repeat among them (the rule {@code StreamAppConfig} applies to the settings, applied
 *       to the topics as they are);
 *   <li>{@code session.deltas} kept no longer than {@code PREFIXLOG_SESSION_TTL}: a delta could
 *       name a base that retention has already deleted.
 * </ul>
 *
 * <p>Not checked: the compacted KV topics, whose keys are blocks (tombstoned when removed or their
 * source is cleared) and sources, and the internal topics, which Kafka Streams creates with the
 * stores' own settings and never alters.
 */
public final class RetentionCheck {
  private RetentionCheck() {}

  /** One existing topic's effective {@code cleanup.policy} and {@code retention.ms}. */
  record Retention(String cleanupPolicy, long retentionMs) {}

  /**
   * Fails when a topic's retention lets it grow without bound or breaks a guarantee, naming each.
   *
   * @throws IllegalStateException when one does, or the broker cannot be asked within {@code
   *     timeout}
   */
  public static void requireRetention(Admin admin, StreamAppConfig config, Duration timeout)
      throws InterruptedException {
    try {
      long ms = timeout.toMillis();
      List<String> names = config.topics().all().stream().map(Topic::name).toList();
      List<ConfigResource> resources = DescribedConfigs.existingTopics(admin, names, ms);
      Map<ConfigResource, Config> described = DescribedConfigs.describe(admin, resources, ms);
      Map<String, Retention> retentions = new LinkedHashMap<>();
      for (ConfigResource resource : resources) {
        Config settings = described.get(resource);
        ConfigEntry policy = settings.get(TopicConfig.CLEANUP_POLICY_CONFIG);
        ConfigEntry retention = settings.get(TopicConfig.RETENTION_MS_CONFIG);
        retentions.put(
            resource.name(),
            new Retention(
                policy == null ? "delete" : policy.value(),
                retention == null ? -1 : Long.parseLong(retention.value().trim())));
      }
      List<String> problems = problems(retentions, config);
      if (!problems.isEmpty()) {
        throw new IllegalStateException(
            "topic retention the app cannot rely on: "
                + String.join("; ", problems)
                + ". Set them (kafka-configs.sh --alter --entity-type topics --entity-name TOPIC"
                + " --add-config ...) or the settings named.");
      }
    } catch (ExecutionException | TimeoutException e) {
      throw AdminFailure.cannot(
          "read the retention of the topics", config.bootstrapServers(), timeout, e);
    }
  }

  /** What is wrong with the retention of the {@code existing} topics, in topic order. */
  static List<String> problems(Map<String, Retention> existing, StreamAppConfig config) {
    Topics topics = config.topics();
    List<String> problems = new ArrayList<>();
    for (Topic<?, ?> topic : topics.all()) {
      Retention found = existing.get(topic.name());
      if (found == null || topic.cleanupPolicy() == CleanupPolicy.COMPACT) {
        continue;
      }
      String what = "topic " + topic.name() + " ";
      boolean turnKeyed = topic.role() == Role.TURN_KEYED;
      if (!deletes(found.cleanupPolicy())) {
        problems.add(
            what
                + "cleanup.policy="
                + found.cleanupPolicy()
                + " never deletes a record (the app creates it "
                + topic.cleanupPolicy().config()
                + (turnKeyed
                    ? ": its keys are unique, so compaction alone never shrinks it)"
                    : ")"));
        continue;
      }
      if (found.retentionMs() < 0) {
        problems.add(what + "retention.ms=" + found.retentionMs() + " keeps every record forever");
        continue;
      }
      long seqRetention = config.sessionSeqRetention().toMillis();
      if (turnKeyed && found.retentionMs() > seqRetention) {
        problems.add(
            what
                + "retention.ms="
                + found.retentionMs()
                + " is above PREFIXLOG_SESSION_SEQ_RETENTION ("
                + seqRetention
                + " ms): a session's new chain could begin while its older chain's records are"
                + " kept, and an 8-digit chain id could repeat among them");
      }
      long ttl = config.sessionTtl().toMillis();
      if (topic == topics.sessionDeltas() && found.retentionMs() <= ttl) {
        problems.add(
            what
                + "retention.ms="
                + found.retentionMs()
                + " is not above PREFIXLOG_SESSION_TTL ("
                + ttl
                + " ms): a delta could name a base that retention has already deleted");
      }
    }
    return List.copyOf(problems);
  }

  private static boolean deletes(String cleanupPolicy) {
    return Arrays.stream(cleanupPolicy.split(",")).map(String::trim).anyMatch("delete"::equals);
  }
}
