package io.prefixlog.tools.erase;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Deletes from the stream app's input topics the records it has already processed: everything
 * before its consumer group's committed offsets, exactly what Kafka Streams itself does to its
 * repartition topics after each commit. The raw requests hold whole bodies; a delete-policy topic
 * cannot drop one session's records, and until its retention they would let a reprocessing (an
 * application reset) bring an erased session back. Records not yet processed are never touched.
 */
final class ProcessedInputs {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What was deleted from one topic. */
  record Truncated(String topic, int partitions, long records) {}

  private ProcessedInputs() {}

  /**
   * Truncates each of {@code topics} up to the group's committed offsets.
   *
   * @return one entry per topic the group has offsets on
   */
  static List<Truncated> truncate(Admin admin, String groupId, List<String> topics)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(groupId)
            .partitionsToOffsetAndMetadata()
            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    for (TopicPartition tp : committed.keySet()) {
      if (topics.contains(tp.topic()) && committed.get(tp) != null) {
        earliest.put(tp, OffsetSpec.earliest());
      }
    }
    if (earliest.isEmpty()) {
      return List.of();
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> low =
        admin.listOffsets(earliest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    Map<TopicPartition, RecordsToDelete> deletes = new HashMap<>();
    Map<String, long[]> perTopic = new HashMap<>();
    for (TopicPartition tp : earliest.keySet()) {
      long upTo = committed.get(tp).offset();
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
    List<Truncated> result = new ArrayList<>();
    for (String topic : topics) {
      long[] counts = perTopic.getOrDefault(topic, new long[2]);
      result.add(new Truncated(topic, (int) counts[0], counts[1]));
    }
    return result;
  }
}
