package io.prefixlog.benchmarks.streams;

import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.TopicSinks;
import io.prefixlog.streams.session.SessionDeltaSupplier;
import io.prefixlog.streams.session.SessionStores;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * A what-if of {@link PrefixlogTopology} for the benchmark only: the same nodes, names, processor
 * ({@code SessionDeltaSupplier.get()}) and sinks, but the {@code session-bases} store is not
 * logged, so a request no longer writes its whole body to a changelog. It measures how much of the
 * cost of state that changelog is, which is the upper bound of what logging bases as deltas, or
 * restoring them from {@code session.deltas}, could save. {@code session-state} stays logged as in
 * {@link SessionStores}.
 */
final class WhatIfTopology {
  private WhatIfTopology() {}

  static Topology unloggedBases(StreamAppConfig config, StreamAppMetrics metrics) {
    Topics topics = config.topics();
    SessionDeltaSupplier real =
        new SessionDeltaSupplier(
            config,
            metrics,
            PrefixlogTopology.SESSION_DELTAS_SINK,
            PrefixlogTopology.DEAD_LETTERS_SINK,
            PrefixlogTopology.ERASURES_SINK,
            PrefixlogTopology.REQUESTS_METADATA_SINK,
            null);
    Topology topology = new Topology();
    topology.addSource(
        PrefixlogTopology.RAW_REQUESTS_SOURCE,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        topics.requestsRaw().name());
    topology.addProcessor(
        PrefixlogTopology.SESSION_DELTA_PROCESSOR,
        new UnloggedBases(real),
        PrefixlogTopology.RAW_REQUESTS_SOURCE);
    topology.addSink(
        PrefixlogTopology.SESSION_DELTAS_SINK,
        topics.sessionDeltas().name(),
        new StringSerializer(),
        new ByteArraySerializer(),
        new BySession<>(),
        PrefixlogTopology.SESSION_DELTA_PROCESSOR);
    TopicSinks.add(
        topology,
        PrefixlogTopology.DEAD_LETTERS_SINK,
        topics.deadLetters(),
        PrefixlogTopology.SESSION_DELTA_PROCESSOR);
    TopicSinks.add(
        topology,
        PrefixlogTopology.ERASURES_SINK,
        topics.erasures(),
        PrefixlogTopology.SESSION_DELTA_PROCESSOR);
    TopicSinks.add(
        topology,
        PrefixlogTopology.REQUESTS_METADATA_SINK,
        topics.requestsMetadata(),
        new BySession<>(),
        PrefixlogTopology.SESSION_DELTA_PROCESSOR);
    return topology;
  }

  /** The real processor, with the stores of SessionStores but bases unlogged. */
  private record UnloggedBases(SessionDeltaSupplier real)
      implements ProcessorSupplier<String, byte[], Object, Object> {
    @Override
    public Processor<String, byte[], Object, Object> get() {
      return real.get();
    }

    @Override
    public Set<StoreBuilder<?>> stores() {
      Set<StoreBuilder<?>> stores = new java.util.HashSet<>();
      for (StoreBuilder<?> store : real.stores()) {
        if (!store.name().equals(SessionStores.BASES)) {
          stores.add(store);
        }
      }
      stores.add(
          Stores.keyValueStoreBuilder(
                  Stores.persistentKeyValueStore(SessionStores.BASES),
                  Serdes.String(),
                  Serdes.ByteArray())
              .withLoggingDisabled());
      return stores;
    }
  }

  /** As the stream app's SessionPartitioner: murmur2 of the session part of the key. */
  private static final class BySession<V> implements StreamPartitioner<Object, V> {
    @Override
    public Optional<Set<Integer>> partitions(String topic, Object key, V value, int numPartitions) {
      String k = (String) key;
      int slash = k.lastIndexOf('/');
      String session = slash < 0 ? k : k.substring(0, slash);
      byte[] bytes = session.getBytes(StandardCharsets.UTF_8);
      return Optional.of(Set.of(Utils.toPositive(Utils.murmur2(bytes)) % numPartitions));
    }
  }
}
