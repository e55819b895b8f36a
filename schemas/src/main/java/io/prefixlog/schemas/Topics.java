package io.prefixlog.schemas;

import io.prefixlog.schemas.Topic.Compression;
import io.prefixlog.schemas.Topic.Role;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RequestMetadata;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
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

  /** The topics under {@code prefix}; the prefix may be empty. */
  public static Topics withPrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    Topics topics =
        new Topics(
            new Topic<>(
                prefix + "requests.raw",
                Serdes.String(),
                Serdes.ByteArray(),
                Role.INPUT,
                Compression.AS_PRODUCED),
            new Topic<>(
                prefix + "kv.events",
                Serdes.String(),
                Serdes.ByteArray(),
                Role.INPUT,
                Compression.AS_PRODUCED),
            new Topic<>(
                prefix + "session.deltas",
                Serdes.String(),
                JsonSerde.of(DeltaRecord.class),
                Role.TURN_KEYED,
                Compression.OUTPUT_ZSTD),
            // Mostly hashes, written for every turn: light compression.
            new Topic<>(
                prefix + "chunk.lookups",
                Serdes.String(),
                JsonSerde.of(ChunkLookupRecord.class),
                Role.TURN_KEYED,
                Compression.LIGHT_ZSTD),
            // Every request's metadata, bodies kept or sampled out, keyed like the turns (a
            // sampled-out request by session_key/ts/request_id): compacted so that erasure's
            // tombstones remove a session's records.
            new Topic<>(
                prefix + "requests.metadata",
                Serdes.String(),
                JsonSerde.of(RequestMetadata.class),
                Role.TURN_KEYED,
                Compression.OUTPUT_ZSTD),
            new Topic<>(
                prefix + "kv.block-index",
                Serdes.String(),
                JsonSerde.of(BlockIndexEntry.class),
                Role.STATE,
                Compression.LIGHT_ZSTD),
            new Topic<>(
                prefix + "kv.source-stats",
                Serdes.String(),
                JsonSerde.of(SourceStats.class),
                Role.STATE,
                Compression.LIGHT_ZSTD),
            // A dead letter holds the input's bytes, body included.
            new Topic<>(
                prefix + "dlq",
                Serdes.ByteArray(),
                JsonSerde.of(DeadLetter.class),
                Role.LOG,
                Compression.OUTPUT_ZSTD),
            // The stream app's acknowledgements of erase orders: an audit trail of what was erased
            // where, keyed by erase id; it names session keys only, never content.
            new Topic<>(
                prefix + "erasures",
                Serdes.String(),
                JsonSerde.of(ErasureAck.class),
                Role.LOG,
                Compression.OUTPUT_ZSTD));
    topics.all();
    return topics;
  }

  /**
   * Every topic, inputs first: the record's components in their declared order, so that a new topic
   * is a component and its definition in {@link #withPrefix}, and everything that walks the topics
   * (creation, retention checks) sees it.
   *
   * @throws NullPointerException naming the component that holds no topic
   */
  public List<Topic<?, ?>> all() {
    List<Topic<?, ?>> all = new ArrayList<>();
    for (RecordComponent component : Topics.class.getRecordComponents()) {
      try {
        Topic<?, ?> topic = (Topic<?, ?>) component.getAccessor().invoke(this);
        all.add(Objects.requireNonNull(topic, component.getName()));
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read the topic " + component.getName(), e);
      }
    }
    return List.copyOf(all);
  }
}
