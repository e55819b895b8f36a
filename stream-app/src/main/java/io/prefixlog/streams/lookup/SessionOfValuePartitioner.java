package io.prefixlog.streams.lookup;

import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions a lookup record, keyed by its turn ({@code session_key/chain/seq}), by the {@code
 * session_key} in its value (a tombstone, which has none, by the session part of its key), with the
 * default partitioner's murmur2: the partition its session's raw events (keyed by session_key) and
 * delta records use, so a consumer reads a session's lookups in order and next to its deltas.
 */
final class SessionOfValuePartitioner implements StreamPartitioner<String, ChunkLookupRecord> {
  @Override
  public Optional<Set<Integer>> partitions(
      String topic, String key, ChunkLookupRecord value, int numPartitions) {
    if (value == null && key != null) {
      // An erasure's tombstone: its turn key (session_key/chain/seq) names the session, and it
      // must land where the lookup it deletes was written, or compaction never removes that one.
      int slash = key.indexOf('/');
      return Optional.of(
          Set.of(partitionOf(slash < 0 ? key : key.substring(0, slash), numPartitions)));
    }
    if (value == null || value.sessionKey() == null) {
      // Never written by this app; the producer's default (by key) is the only sensible choice.
      return Optional.empty();
    }
    return Optional.of(Set.of(partitionOf(value.sessionKey(), numPartitions)));
  }

  /** The partition Kafka's default partitioner gives a record keyed by {@code session}. */
  static int partitionOf(String session, int numPartitions) {
    byte[] bytes = session.getBytes(StandardCharsets.UTF_8);
    return Utils.toPositive(Utils.murmur2(bytes)) % numPartitions;
  }
}
