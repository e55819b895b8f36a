package io.prefixlog.streams.topology;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions a {@code session_key/…} keyed output ({@code session_key/chain/seq}) by its session
 * part, with the default partitioner's murmur2: a session's outputs land in one partition, the same
 * partition number its raw events (keyed by session_key) use, so a consumer reads a session in
 * order.
 */
final class SessionPartitioner<V> implements StreamPartitioner<Object, V> {
  @Override
  public Optional<Set<Integer>> partitions(String topic, Object key, V value, int numPartitions) {
    String session = sessionOf((String) key);
    byte[] bytes = session.getBytes(StandardCharsets.UTF_8);
    return Optional.of(Set.of(Utils.toPositive(Utils.murmur2(bytes)) % numPartitions));
  }

  static String sessionOf(String key) {
    int slash = key.indexOf('/');
    return slash < 0 ? key : key.substring(0, slash);
  }
}
