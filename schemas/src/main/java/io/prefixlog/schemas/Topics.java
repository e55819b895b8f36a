package io.prefixlog.schemas;

import io.prefixlog.schemas.Topic.CleanupPolicy;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RequestMetadata;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Every prefixlog topic, named under one prefix (default {@code prefixlog.}).
 *
 * <p>The raw inputs are typed as bytes: their readers parse them themselves so that a bad record
 * becomes a counted dead letter with its exact bytes, not a deserialisation crash.
 */
public record Topics(
    Topic<String, byte[]> requestsRaw,
    Topic<String, byte[]> kvEvents,
    Topic<String, DeltaRecord> sessionDeltas,
    Topic<String, ChunkLookupRecord> chunkLookups,
    Topic<String, RequestMetadata> requestsMetadata,
    Topic<String, BlockIndexEntry> blockIndex,
    Topic<String, SourceStats> sourceStats,
    Topic<byte[], DeadLetter> deadLetters,
    Topic<String, ErasureAck> erasures) {

  public static final String DEFAULT_PREFIX = "prefixlog.";

  public Topics {
    Objects.requireNonNull(requestsRaw, "requestsRaw");
    Objects.requireNonNull(kvEvents, "kvEvents");
    Objects.requireNonNull(sessionDeltas, "sessionDeltas");
    Objects.requireNonNull(chunkLookups, "chunkLookups");
    Objects.requireNonNull(requestsMetadata, "requestsMetadata");
    Objects.requireNonNull(blockIndex, "blockIndex");
    Objects.requireNonNull(sourceStats, "sourceStats");
    Objects.requireNonNull(deadLetters, "deadLetters");
    Objects.requireNonNull(erasures, "erasures");
  }

  /** The topics under {@code prefix}; the prefix may be empty. */
  public static Topics withPrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return new Topics(
        new Topic<>(
            prefix + "requests.raw", Serdes.String(), Serdes.ByteArray(), CleanupPolicy.DELETE),
        new Topic<>(
            prefix + "kv.events", Serdes.String(), Serdes.ByteArray(), CleanupPolicy.DELETE),
        new Topic<>(
            prefix + "session.deltas",
            Serdes.String(),
            JsonSerde.of(DeltaRecord.class),
            CleanupPolicy.COMPACT_DELETE),
        new Topic<>(
            prefix + "chunk.lookups",
            Serdes.String(),
            JsonSerde.of(ChunkLookupRecord.class),
            CleanupPolicy.COMPACT_DELETE),
        // Every request's metadata, bodies kept or sampled out, keyed like the turns (a
        // sampled-out request by session_key/ts/request_id): compacted so that erasure's
        // tombstones remove a session's records.
        new Topic<>(
            prefix + "requests.metadata",
            Serdes.String(),
            JsonSerde.of(RequestMetadata.class),
            CleanupPolicy.COMPACT_DELETE),
        new Topic<>(
            prefix + "kv.block-index",
            Serdes.String(),
            JsonSerde.of(BlockIndexEntry.class),
            CleanupPolicy.COMPACT),
        new Topic<>(
            prefix + "kv.source-stats",
            Serdes.String(),
            JsonSerde.of(SourceStats.class),
            CleanupPolicy.COMPACT),
        new Topic<>(
            prefix + "dlq",
            Serdes.ByteArray(),
            JsonSerde.of(DeadLetter.class),
            CleanupPolicy.DELETE),
        // The stream app's acknowledgements of erase orders: an audit trail of what was erased
        // where, keyed by erase id; it names session keys only, never content.
        new Topic<>(
            prefix + "erasures",
            Serdes.String(),
            JsonSerde.of(ErasureAck.class),
            CleanupPolicy.DELETE));
  }

  /** Every topic, inputs first. */
  public List<Topic<?, ?>> all() {
    return List.of(
        requestsRaw,
        kvEvents,
        sessionDeltas,
        chunkLookups,
        requestsMetadata,
        blockIndex,
        sourceStats,
        deadLetters,
        erasures);
  }
}
