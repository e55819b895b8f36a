package io.prefixlog.streams.upgrade;

import io.prefixlog.core.text.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;

/**
 * What identifies a topology across builds: a digest of its structure (sub-topologies by number,
 * every node with its kind, name, topics, stores and successors) and the names it uses ({@code
 * processor:session-delta}, {@code store:session-state}, {@code topic:prefixlog.dlq}, …), by which
 * an error says what differs.
 *
 * <p>Built from {@link TopologyDescription}'s accessors rather than its {@code toString()}, whose
 * layout a Kafka Streams upgrade may change without changing the topology.
 *
 * @param fingerprint the first 16 hex digits of the SHA-256 of the canonical description
 * @param names the node, store and topic names, sorted
 */
public record TopologyFingerprint(String fingerprint, List<String> names) {
  public TopologyFingerprint {
    Objects.requireNonNull(fingerprint, "fingerprint");
    names = List.copyOf(names);
  }

  public static TopologyFingerprint of(Topology topology) {
    return of(topology.describe());
  }

  static TopologyFingerprint of(TopologyDescription description) {
    StringBuilder canonical = new StringBuilder();
    Set<String> names = new TreeSet<>();
    List<TopologyDescription.Subtopology> subtopologies =
        description.subtopologies().stream()
            .sorted(Comparator.comparingInt(TopologyDescription.Subtopology::id))
            .toList();
    for (TopologyDescription.Subtopology subtopology : subtopologies) {
      canonical.append("subtopology ").append(subtopology.id()).append('\n');
      describeNodes(subtopology.nodes(), canonical, names);
    }
    List<TopologyDescription.GlobalStore> globals =
        description.globalStores().stream()
            .sorted(Comparator.comparingInt(TopologyDescription.GlobalStore::id))
            .toList();
    for (TopologyDescription.GlobalStore global : globals) {
      canonical.append("global store ").append(global.id()).append('\n');
      describeNodes(Set.of(global.source(), global.processor()), canonical, names);
    }
    String digest = Sha256.hex(canonical.toString().getBytes(StandardCharsets.UTF_8));
    return new TopologyFingerprint(digest.substring(0, 16), List.copyOf(names));
  }

  private static void describeNodes(
      Set<? extends TopologyDescription.Node> nodes, StringBuilder canonical, Set<String> names) {
    List<TopologyDescription.Node> sorted =
        nodes.stream()
            .<TopologyDescription.Node>map(n -> n)
            .sorted(Comparator.comparing(TopologyDescription.Node::name))
            .toList();
    for (TopologyDescription.Node node : sorted) {
      String successors =
          node.successors().stream()
              .map(TopologyDescription.Node::name)
              .sorted()
              .collect(Collectors.joining(","));
      if (node instanceof TopologyDescription.Source source) {
        Set<String> topics =
            source.topicSet() == null ? Set.of() : new TreeSet<>(source.topicSet());
        String pattern = source.topicPattern() == null ? "" : source.topicPattern().pattern();
        canonical.append("source ").append(node.name()).append(" topics=").append(topics);
        canonical.append(" pattern=").append(pattern);
        names.add("source:" + node.name());
        topics.forEach(t -> names.add("topic:" + t));
      } else if (node instanceof TopologyDescription.Processor processor) {
        Set<String> stores = new TreeSet<>(processor.stores());
        canonical.append("processor ").append(node.name()).append(" stores=").append(stores);
        names.add("processor:" + node.name());
        stores.forEach(s -> names.add("store:" + s));
      } else if (node instanceof TopologyDescription.Sink sink) {
        String topic = sink.topic() == null ? "(chosen per record)" : sink.topic();
        canonical.append("sink ").append(node.name()).append(" topic=").append(topic);
        names.add("sink:" + node.name());
        if (sink.topic() != null) {
          names.add("topic:" + sink.topic());
        }
      } else {
        canonical.append("node ").append(node.name());
        names.add("node:" + node.name());
      }
      canonical.append(" -> [").append(successors).append("]\n");
    }
  }

  @Override
  public String toString() {
    return fingerprint;
  }
}
