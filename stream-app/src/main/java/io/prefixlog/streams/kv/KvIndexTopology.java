package io.prefixlog.streams.kv;

import io.prefixlog.schemas.Topic;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.util.Objects;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

/**
 * Adds the KV block index and the source statistics to a topology, as a sub-topology of their own:
 *
 * <pre>
 * kv.events ─▶ kv-block-index ─┬─▶ kv.block-index    (key source/hash, entry or tombstone)
 *   (key source)               ├─▶ dlq               (key as it arrived)
 *                              └─▶ kv-source-stats ─▶ kv.source-stats   (key source)
 * </pre>
 *
 * <p>Both processors key their state by source (the input key), so all of a source's blocks and
 * statistics live in the task of its {@code kv.events} partition, and a batch's order is kept.
 */
public final class KvIndexTopology {
  public static final String KV_EVENTS_SOURCE = "kv-events";
  public static final String BLOCK_INDEX_PROCESSOR = "kv-block-index";
  public static final String SOURCE_STATS_PROCESSOR = "kv-source-stats";
  public static final String BLOCK_INDEX_SINK = "kv-block-index-sink";
  public static final String SOURCE_STATS_SINK = "kv-source-stats-sink";
  public static final String DEAD_LETTERS_SINK = "kv-dead-letters-sink";

  /** The store names (changelog topic names: renaming one is a breaking change). */
  public static final String BLOCK_INDEX_STORE = BlockIndexSupplier.STORE;

  public static final String SOURCE_STATS_STORE = SourceStatsSupplier.STORE;

  private KvIndexTopology() {}

  /** Adds the nodes above to {@code topology}; returns it. */
  public static Topology addTo(
      Topology topology, StreamAppConfig config, StreamAppMetrics metrics) {
    Objects.requireNonNull(topology, "topology");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(metrics, "metrics");
    Topics topics = config.topics();
    KvIndexMetrics kvMetrics = new KvIndexMetrics(metrics.registry());
    topology.addSource(
        KV_EVENTS_SOURCE,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        topics.kvEvents().name());
    topology.addProcessor(
        BLOCK_INDEX_PROCESSOR,
        new BlockIndexSupplier(
            new BlockIndexSupplier.Wiring(
                kvMetrics, BLOCK_INDEX_SINK, SOURCE_STATS_PROCESSOR, DEAD_LETTERS_SINK)),
        KV_EVENTS_SOURCE);
    topology.addProcessor(
        SOURCE_STATS_PROCESSOR,
        new SourceStatsSupplier(
            new SourceStatsSupplier.Wiring(kvMetrics, config.kvStatsInterval(), SOURCE_STATS_SINK)),
        BLOCK_INDEX_PROCESSOR);
    Topic<String, BlockIndexEntry> index = topics.blockIndex();
    topology.addSink(
        BLOCK_INDEX_SINK,
        index.name(),
        index.keySerde().serializer(),
        index.valueSerde().serializer(),
        BLOCK_INDEX_PROCESSOR);
    Topic<String, SourceStats> stats = topics.sourceStats();
    topology.addSink(
        SOURCE_STATS_SINK,
        stats.name(),
        stats.keySerde().serializer(),
        stats.valueSerde().serializer(),
        SOURCE_STATS_PROCESSOR);
    topology.addSink(
        DEAD_LETTERS_SINK,
        topics.deadLetters().name(),
        new ByteArraySerializer(),
        topics.deadLetters().valueSerde().serializer(),
        BLOCK_INDEX_PROCESSOR);
    return topology;
  }
}
