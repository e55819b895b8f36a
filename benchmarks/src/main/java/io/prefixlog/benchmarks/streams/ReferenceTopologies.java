package io.prefixlog.benchmarks.streams;

import io.prefixlog.streams.RawRecords;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The references prefixlog's topology is measured against. Both read the raw topic exactly as
 * {@link PrefixlogTopology} does (String keys, byte[] values, same source name) and write with the
 * same serialisers, so the Kafka work per input record is the same apart from what the processor
 * adds.
 *
 * <ul>
 *   <li>{@link #passThrough}: source → sink, the raw value unchanged, same key, same partition;
 *   <li>{@link #passThroughWithStore}: one processor between them that puts every value into a
 *       logged RocksDB store under its record key (the latest body of each session), built like
 *       prefixlog's stores ({@code persistentKeyValueStore}, changelog with the same {@code
 *       max.message.bytes}, no record cache), then forwards it;
 *   <li>{@link #routedPassThrough}: the pass-through behind the routing step prefixlog's state sits
 *       behind (a repartition topic with the stream app's fixed partition count, written and read
 *       again in the same transactions), counting what reaches the sink.
 * </ul>
 */
final class ReferenceTopologies {
  static final String STORE = "bench-bodies";
  static final String STORE_PROCESSOR = "bench-store";
  static final String SINK = "bench-sink";
  static final String ROUTING = "bench-by-session";
  static final String ROUTED_COUNTER = "bench-routed";

  private ReferenceTopologies() {}

  static Topology passThrough(StreamAppConfig config, String outputTopic) {
    Topology topology = source(config);
    topology.addSink(
        SINK,
        outputTopic,
        new StringSerializer(),
        new ByteArraySerializer(),
        PrefixlogTopology.RAW_REQUESTS_SOURCE);
    return topology;
  }

  static Topology passThroughWithStore(StreamAppConfig config, String outputTopic) {
    Topology topology = source(config);
    Map<String, String> changelog =
        Map.of("max.message.bytes", Long.toString(config.maxRecordBytes()));
    StoreBuilder<KeyValueStore<String, byte[]>> store =
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.ByteArray())
            .withLoggingEnabled(changelog);
    topology.addProcessor(
        STORE_PROCESSOR, StoreProcessor::new, PrefixlogTopology.RAW_REQUESTS_SOURCE);
    topology.addStateStore(store, STORE_PROCESSOR);
    topology.addSink(
        SINK, outputTopic, new StringSerializer(), new ByteArraySerializer(), STORE_PROCESSOR);
    return topology;
  }

  static Topology routedPassThrough(StreamAppConfig config, String outputTopic, LongAdder routed) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(
            config.topics().requestsRaw().name(),
            Consumed.with(Serdes.String(), Serdes.ByteArray())
                .withName(PrefixlogTopology.RAW_REQUESTS_SOURCE))
        .repartition(RawRecords.byKey(ROUTING, config.statePartitions()))
        .peek((key, value) -> routed.increment(), Named.as(ROUTED_COUNTER))
        .to(outputTopic, Produced.with(Serdes.String(), Serdes.ByteArray()).withName(SINK));
    return builder.build();
  }

  private static Topology source(StreamAppConfig config) {
    Topology topology = new Topology();
    topology.addSource(
        PrefixlogTopology.RAW_REQUESTS_SOURCE,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        config.topics().requestsRaw().name());
    return topology;
  }

  /** Puts the value under its key, then forwards the record unchanged. */
  private static final class StoreProcessor implements Processor<String, byte[], String, byte[]> {
    private ProcessorContext<String, byte[]> context;
    private KeyValueStore<String, byte[]> store;

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
      this.context = context;
      this.store = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
      store.put(record.key(), record.value());
      context.forward(record);
    }
  }
}
