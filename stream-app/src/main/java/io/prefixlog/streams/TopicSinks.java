package io.prefixlog.streams;

import io.prefixlog.schemas.Topic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Sinks that write one of prefixlog's topics with the topic's own serdes: the topic declares how
 * its keys and values are written ({@link io.prefixlog.schemas.Topics}), so a topology names only
 * the sink, the topic and the parent.
 */
public final class TopicSinks {
  private TopicSinks() {}

  /** Adds sink {@code name} under {@code parent}, writing {@code topic}. */
  public static <K, V> void add(Topology topology, String name, Topic<K, V> topic, String parent) {
    topology.addSink(
        name, topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer(), parent);
  }

  /** {@link #add}, each record's partition chosen by {@code partitioner}. */
  public static <K, V> void add(
      Topology topology,
      String name,
      Topic<K, V> topic,
      StreamPartitioner<? super K, ? super V> partitioner,
      String parent) {
    topology.addSink(
        name,
        topic.name(),
        topic.keySerde().serializer(),
        topic.valueSerde().serializer(),
        partitioner,
        parent);
  }
}
