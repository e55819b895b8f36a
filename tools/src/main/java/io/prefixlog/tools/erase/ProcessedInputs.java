package io.prefixlog.tools.erase;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;

/**
 * Deletes from the input topics the records every reader has already processed: everything before
 * the lowest committed offset of all the consumer groups that read the partition (the stream app's,
 * and, for {@code kv.events}, the archive connector's), which is what Kafka Streams itself does to
 * its repartition topics after each commit. The raw requests hold whole bodies, and erase orders
 * and KV events name sessions; a delete-policy topic cannot drop one session's records, and until
 * its retention they would let a reprocessing (an application reset) bring an erased session back.
 * A record some group has not processed yet is never touched, and a partition the stream app has no
 * offset on is left alone.
 */
final class ProcessedInputs {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What was deleted from one topic. */
  record Truncated(String topic, int partitions, long records) {}

  private ProcessedInputs() {}

  /** Truncates each of {@code topics} up to what every group reading it has committed. */
  static List<Truncated> truncate(Admin admin, String streamAppGroup, List<String> topics)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, Long> lowest = new HashMap<>();
    Map<TopicPartition, Boolean> readByApp = new HashMap<>();
    for (String group : groups(admin)) {
      Map<TopicPartition, OffsetAndMetadata> committed;
      try {
        committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        continue; // a group that has no offsets to list (it vanished meanwhile)
      }
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
        if (e.getValue() == null || !topics.contains(e.getKey().topic())) {
          continue;
        }
        lowest.merge(e.getKey(), e.getValue().offset(), Math::min);
        if (group.equals(streamAppGroup)) {
          readByApp.put(e.getKey(), true);
        }
      }
    }
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    for (TopicPartition tp : lowest.keySet()) {
      if (readByApp.containsKey(tp)) {
        earliest.put(tp, OffsetSpec.earliest());
      }
    }
    Map<String, long[]> perTopic = new HashMap<>();
    if (!earliest.isEmpty()) {
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> low =
          admin.listOffsets(earliest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      Map<TopicPartition, RecordsToDelete> deletes = new HashMap<>();
      for (TopicPartition tp : earliest.keySet()) {
        long upTo = lowest.get(tp);
        long from = low.get(tp).offset();
        if (upTo > from) {
          deletes.put(tp, RecordsToDelete.beforeOffset(upTo));
          long[] counts = perTopic.computeIfAbsent(tp.topic(), t -> new long[2]);
          counts[0]++;
          counts[1] += upTo - from;
        }
      }
      if (!deletes.isEmpty()) {
        admin.deleteRecords(deletes).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
    List<Truncated> result = new ArrayList<>();
    for (String topic : topics) {
      long[] counts = perTopic.getOrDefault(topic, new long[2]);
      result.add(new Truncated(topic, (int) counts[0], counts[1]));
    }
    return result;
  }

  /** Every group that may hold consumer offsets (share groups do not). */
  private static List<String> groups(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    Collection<GroupListing> all =
        admin.listGroups().all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    List<String> groups = new ArrayList<>();
    for (GroupListing g : all) {
      if (g.type().map(t -> t != GroupType.SHARE).orElse(true)) {
        groups.add(g.groupId());
      }
    }
    return groups;
  }
}
