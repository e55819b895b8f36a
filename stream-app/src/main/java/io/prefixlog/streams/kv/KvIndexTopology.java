package io.prefixlog.streams.kv;

import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.RawRecords;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.TopicSinks;
import io.prefixlog.streams.admin.TopicCompression;
import io.prefixlog.streams.errors.SourcePosition;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * Adds the KV block index and the source statistics to a topology, as a sub-topology of their own:
 *
 * <pre>
 * kv.events ─▶ kv-events-by-source (internal repartition, PREFIXLOG_STATE_PARTITIONS partitions)
 *   ─▶ kv-block-index ─┬─▶ kv.block-index    (key source/hash, entry or tombstone)
 *                      ├─▶ dlq               (key as it arrived, coordinates on kv.events)
 *                      └─▶ kv-source-stats ─▶ kv.source-stats   (key source)
 * </pre>
 *
 * <p>Both processors key their state by source (the input key), so all of a source's blocks and
 * statistics live in one task, and a batch's order is kept. They read the events through a
 * repartition topic whose partition count is fixed at the first start, for the reason the session
 * state does (see {@code PrefixlogTopology}): partitions added to {@code kv.events} must not move a
 * source away from its state, nor stop the app on a changelog whose count no longer matches.
 *
 * <p>Built in two steps because the DSL declares the repartition and the Processor API the named
 * children a processor forwards to: {@link #addSource} before {@code StreamsBuilder.build()},
 * {@link #addChildren} after.
 */
public final class KvIndexTopology {
  public static final String KV_EVENTS_SOURCE = "kv-events";
  public static final String KV_SOURCE_POSITION_STAMP = "kv-source-position";
  public static final String KV_EVENTS_BY_SOURCE = "kv-events-by-source";
  public static final String BLOCK_INDEX_PROCESSOR = "kv-block-index";
  public static final String SOURCE_STATS_PROCESSOR = "kv-source-stats";
  public static final String BLOCK_INDEX_SINK = "kv-block-index-sink";
  public static final String SOURCE_STATS_SINK = "kv-source-stats-sink";
  public static final String DEAD_LETTERS_SINK = "kv-dead-letters-sink";
  public static final String ERASURES_SINK = "kv-erasures-sink";

  /** The store names (changelog topic names: renaming one is a breaking change). */
  public static final String BLOCK_INDEX_STORE = BlockIndexSupplier.STORE;

  public static final String SOURCE_STATS_STORE = SourceStatsSupplier.STORE;

  private final StreamAppConfig config;
  private final StreamAppMetrics metrics;
  private final KvIndexMetrics kvMetrics;

  public KvIndexTopology(StreamAppConfig config, StreamAppMetrics metrics) {
    this.config = Objects.requireNonNull(config, "config");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.kvMetrics = new KvIndexMetrics(metrics.registry());
  }

  /**
   * The stores' changelog settings: an erased session id leaves the broker within the lag, and the
   * broker stores them in zstd ({@link TopicCompression}).
   */
  private Map<String, String> changelog() {
    Map<String, String> settings =
        new HashMap<>(TopicCompression.zstd(TopicCompression.LIGHT_ZSTD_LEVEL));
    settings.put("max.compaction.lag.ms", Long.toString(config.maxCompactionLag().toMillis()));
    return Map.copyOf(settings);
  }

  /**
   * The source, its position stamp, the repartition step and the block-index processor.
   *
   * @param timestamps the source's timestamp extractor (the app's clock-skew bound)
   */
  public void addSource(StreamsBuilder builder, TimestampExtractor timestamps) {
    builder.stream(
            config.topics().kvEvents().name(), RawRecords.consumed(KV_EVENTS_SOURCE, timestamps))
        .process(SourcePosition.Stamp::new, Named.as(KV_SOURCE_POSITION_STAMP))
        .repartition(RawRecords.byKey(KV_EVENTS_BY_SOURCE, config.statePartitions()))
        .process(
            BlockIndexSupplier.of(
                new BlockIndexSupplier.Wiring(
                    kvMetrics,
                    metrics,
                    BLOCK_INDEX_SINK,
                    SOURCE_STATS_PROCESSOR,
                    DEAD_LETTERS_SINK,
                    config.bulkBatch(),
                    config.bulkInterval(),
                    config.kvSourceExpiry()),
                changelog()),
            Named.as(BLOCK_INDEX_PROCESSOR));
  }

  /** The source-statistics processor and the four sinks, under the block-index processor. */
  public Topology addChildren(Topology topology) {
    Objects.requireNonNull(topology, "topology");
    Topics topics = config.topics();
    topology.addProcessor(
        SOURCE_STATS_PROCESSOR,
        SourceStatsSupplier.of(
            new SourceStatsSupplier.Wiring(
                kvMetrics, config.kvStatsInterval(), SOURCE_STATS_SINK, ERASURES_SINK),
            changelog()),
        BLOCK_INDEX_PROCESSOR);
    TopicSinks.add(topology, BLOCK_INDEX_SINK, topics.blockIndex(), BLOCK_INDEX_PROCESSOR);
    TopicSinks.add(topology, SOURCE_STATS_SINK, topics.sourceStats(), SOURCE_STATS_PROCESSOR);
    TopicSinks.add(topology, DEAD_LETTERS_SINK, topics.deadLetters(), BLOCK_INDEX_PROCESSOR);
    TopicSinks.add(topology, ERASURES_SINK, topics.erasures(), SOURCE_STATS_PROCESSOR);
    return topology;
  }
}
