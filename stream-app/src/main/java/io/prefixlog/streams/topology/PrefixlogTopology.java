package io.prefixlog.streams.topology;

import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.streams.RawRecords;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.TopicSinks;
import io.prefixlog.streams.errors.SourcePosition;
import io.prefixlog.streams.kv.KvIndexTopology;
import io.prefixlog.streams.lookup.ChunkLookupTopology;
import io.prefixlog.streams.session.SessionDeltaSupplier;
import java.util.Properties;
import java.util.function.LongSupplier;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Named;

/**
 * Builds the stream app's topology. Both {@code main()} and the tests call {@link #build}; a golden
 * test pins {@code describe()}, because node and store names are part of the deployed state
 * (changelog topics, consumer offsets).
 *
 * <pre>
 * requests.raw ─▶ requests-by-session (internal, PREFIXLOG_STATE_PARTITIONS partitions)
 *   ─▶ session-delta ─┬─▶ session.deltas  (key session_key/chain/seq, partitioned by session)
 *                     ├─▶ requests.metadata (every request: its turn key, or session_key/ts/request_id
 *                     │                      when capture sampling left the body out)
 *                     ├─▶ dlq             (key as it arrived)
 *                     └─▶ chunk-lookup ─▶ chunk.lookups (key session_key/chain/seq)
 * kv.events ─▶ kv-events-by-source (internal) ─▶ kv-block-index ─┬─▶ kv.block-index, dlq
 *                                                   (KvIndexTopology) └─▶ kv-source-stats ─▶ kv.source-stats
 * </pre>
 *
 * <p>Why the raw events pass through an internal repartition topic: Kafka Streams partitions a
 * task's state like its source topic. Read straight from {@code requests.raw}, the session state
 * was bound to that topic's partition count, so an operator adding partitions to it (the first move
 * when scaling out) killed the stream threads ("internal topic ... has invalid partitions") and
 * would have moved sessions away from their state anyway. Through a topic whose count is fixed at
 * the first start, the raw topic can grow while every session keeps its partition and state. The
 * cost is one more write and read of each raw event; Kafka Streams purges the repartition topic as
 * it commits.
 *
 * <p>Both sources read their records' timestamps held to at most {@code PREFIXLOG_MAX_CLOCK_SKEW}
 * ahead of the instance's wall clock ({@link ClockSkewBound}): at the source, before the
 * repartition, so that one producer whose clock runs ahead cannot move the stream time of every
 * session of a task, and every store, punctuator and output downstream sees the bounded time.
 *
 * <p>The chunk-lookup processor is a child of session-delta, not a second reader of the raw events:
 * it sees only requests that became a turn (no duplicates, no dead letters), already parsed, and
 * writes under the turn's key, which no other client's request can share.
 */
public final class PrefixlogTopology {
  public static final String RAW_REQUESTS_SOURCE = "raw-requests";

  /** Stamps each raw event with its position on {@code requests.raw} (see SourcePosition). */
  public static final String SOURCE_POSITION_STAMP = "source-position";

  /**
   * The repartition step's name; its topic is {@code <application
   * id>-requests-by-session-repartition}.
   */
  public static final String REQUESTS_BY_SESSION = "requests-by-session";

  public static final String SESSION_DELTA_PROCESSOR = "session-delta";
  public static final String SESSION_DELTAS_SINK = "session-deltas-sink";
  public static final String DEAD_LETTERS_SINK = "dead-letters-sink";
  public static final String ERASURES_SINK = "erasures-sink";
  public static final String REQUESTS_METADATA_SINK = "requests-metadata-sink";

  private PrefixlogTopology() {}

  public static Topology build(StreamAppConfig config, StreamAppMetrics metrics) {
    return build(config, metrics, System::currentTimeMillis);
  }

  /**
   * {@link #build(StreamAppConfig, StreamAppMetrics)} with another clock than the system's, so that
   * a test can put records ahead of it by an exact amount.
   *
   * @param wallClock the clock the input records' timestamps are held to ({@link ClockSkewBound}),
   *     epoch milliseconds
   */
  static Topology build(StreamAppConfig config, StreamAppMetrics metrics, LongSupplier wallClock) {
    Topics topics = config.topics();
    StreamsBuilder builder = new StreamsBuilder(topologyConfig(config));
    String lookupChild =
        config.chunkLookupsEnabled() ? ChunkLookupTopology.CHUNK_LOOKUP_PROCESSOR : null;
    builder.stream(
            topics.requestsRaw().name(),
            RawRecords.consumed(
                RAW_REQUESTS_SOURCE,
                new ClockSkewBound(config.maxClockSkew(), wallClock, metrics, "sessionKey")))
        .process(SourcePosition.Stamp::new, Named.as(SOURCE_POSITION_STAMP))
        .repartition(RawRecords.byKey(REQUESTS_BY_SESSION, config.statePartitions()))
        .process(
            new SessionDeltaSupplier(
                config,
                metrics,
                SESSION_DELTAS_SINK,
                DEAD_LETTERS_SINK,
                ERASURES_SINK,
                REQUESTS_METADATA_SINK,
                lookupChild),
            Named.as(SESSION_DELTA_PROCESSOR));
    KvIndexTopology kv = config.kvIndexEnabled() ? new KvIndexTopology(config, metrics) : null;
    if (kv != null) {
      kv.addSource(
          builder, new ClockSkewBound(config.maxClockSkew(), wallClock, metrics, "source"));
    }
    // The processors forward to named children, which the Processor API adds to the built
    // topology (the DSL cannot name a child per record).
    Topology topology = builder.build();
    // Delta values arrive already serialised (see SessionDeltaProcessor), as topics.sessionDeltas()
    // would write them.
    topology.addSink(
        SESSION_DELTAS_SINK,
        topics.sessionDeltas().name(),
        new StringSerializer(),
        new ByteArraySerializer(),
        new SessionPartitioner<byte[]>(),
        SESSION_DELTA_PROCESSOR);
    TopicSinks.add(topology, DEAD_LETTERS_SINK, topics.deadLetters(), SESSION_DELTA_PROCESSOR);
    TopicSinks.add(topology, ERASURES_SINK, topics.erasures(), SESSION_DELTA_PROCESSOR);
    TopicSinks.add(
        topology,
        REQUESTS_METADATA_SINK,
        topics.requestsMetadata(),
        new SessionPartitioner<RequestMetadata>(),
        SESSION_DELTA_PROCESSOR);
    if (lookupChild != null) {
      ChunkLookupTopology.addTo(
          topology, config, metrics, SESSION_DELTA_PROCESSOR, config.chunkSizeBytes());
    }
    if (kv != null) {
      kv.addChildren(topology);
    }
    return topology;
  }

  /**
   * The topology-level Kafka Streams settings among the pass-throughs ({@code PREFIXLOG_KAFKA_*}).
   * Kafka Streams applies some of them only when the topology is built with them: a {@code
   * processor.wrapper.class} (tracing, fault injection in the tests) would otherwise be ignored
   * without a word.
   */
  private static TopologyConfig topologyConfig(StreamAppConfig config) {
    Properties app = new Properties();
    app.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
    app.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    app.putAll(config.kafka());
    Properties overrides = new Properties();
    overrides.putAll(config.kafka());
    return new TopologyConfig(null, new StreamsConfig(app), overrides);
  }
}
