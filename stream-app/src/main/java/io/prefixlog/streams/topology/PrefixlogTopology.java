package io.prefixlog.streams.topology;

import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.kv.KvIndexTopology;
import io.prefixlog.streams.lookup.ChunkLookupTopology;
import io.prefixlog.streams.session.SessionDeltaSupplier;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;

/**
 * Builds the stream app's topology. Both {@code main()} and the tests call {@link #build}; a golden
 * test pins {@code describe()}, because node and store names are part of the deployed state
 * (changelog topics, consumer offsets).
 *
 * <pre>
 * requests.raw ─┬─▶ session-delta ─┬─▶ session.deltas  (key session_key/seq, partitioned by session)
 *               │                  └─▶ dlq             (key as it arrived)
 *               └─▶ chunk-lookup ────▶ chunk.lookups   (key request_id, partitioned by session)
 * kv.events ───▶ kv-block-index ─┬─▶ kv.block-index, dlq  (KvIndexTopology)
 *                                └─▶ kv-source-stats ─▶ kv.source-stats
 * </pre>
 */
public final class PrefixlogTopology {
  public static final String RAW_REQUESTS_SOURCE = "raw-requests";
  public static final String SESSION_DELTA_PROCESSOR = "session-delta";
  public static final String SESSION_DELTAS_SINK = "session-deltas-sink";
  public static final String DEAD_LETTERS_SINK = "dead-letters-sink";

  private PrefixlogTopology() {}

  public static Topology build(StreamAppConfig config, StreamAppMetrics metrics) {
    Topics topics = config.topics();
    Topology topology = new Topology();
    topology.addSource(
        RAW_REQUESTS_SOURCE,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        topics.requestsRaw().name());
    topology.addProcessor(
        SESSION_DELTA_PROCESSOR,
        new SessionDeltaSupplier(config, metrics, SESSION_DELTAS_SINK, DEAD_LETTERS_SINK),
        RAW_REQUESTS_SOURCE);
    // Delta values arrive already serialised (see SessionDeltaProcessor), as topics.sessionDeltas()
    // would write them.
    topology.addSink(
        SESSION_DELTAS_SINK,
        topics.sessionDeltas().name(),
        new StringSerializer(),
        new ByteArraySerializer(),
        new SessionPartitioner<byte[]>(),
        SESSION_DELTA_PROCESSOR);
    topology.addSink(
        DEAD_LETTERS_SINK,
        topics.deadLetters().name(),
        new ByteArraySerializer(),
        topics.deadLetters().valueSerde().serializer(),
        SESSION_DELTA_PROCESSOR);
    if (config.chunkLookupsEnabled()) {
      ChunkLookupTopology.addTo(
          topology, config, metrics, RAW_REQUESTS_SOURCE, config.chunkSizeBytes());
    }
    if (config.kvIndexEnabled()) {
      KvIndexTopology.addTo(topology, config, metrics);
    }
    return topology;
  }
}
