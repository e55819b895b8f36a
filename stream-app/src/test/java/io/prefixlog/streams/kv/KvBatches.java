package io.prefixlog.streams.kv;

import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.List;

/** {@code kv.events} records for the tests, built as the bridge builds them. */
final class KvBatches {
  private static final JsonSerde<KvEventBatch> SERDE = JsonSerde.of(KvEventBatch.class);

  private KvBatches() {}

  static KvEvent storedIn(String medium, Integer group, String session, String... hashes) {
    return new KvEvent(
        KvEvent.BLOCK_STORED,
        List.of(hashes),
        null,
        16 * hashes.length,
        16,
        null,
        null,
        medium,
        group,
        null,
        null,
        null,
        session,
        null);
  }

  static KvEvent stored(String... hashes) {
    return storedIn("GPU", 0, null, hashes);
  }

  static KvEvent removedIn(String medium, Integer group, String... hashes) {
    return new KvEvent(
        KvEvent.BLOCK_REMOVED,
        List.of(hashes),
        null,
        null,
        null,
        null,
        null,
        medium,
        group,
        null,
        null,
        null,
        null,
        null);
  }

  static KvEvent removed(String... hashes) {
    return removedIn("GPU", 0, hashes);
  }

  static KvEvent cleared() {
    return new KvEvent(
        KvEvent.ALL_BLOCKS_CLEARED,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  static KvEvent other(String type, String... hashes) {
    return new KvEvent(
        type,
        List.of(hashes),
        null,
        null,
        null,
        null,
        null,
        "GPU",
        0,
        null,
        null,
        null,
        null,
        null);
  }

  static KvEventBatch batch(KvSource source, long seq, long ts, KvEvent... events) {
    return new KvEventBatch(
        KvEventBatch.SCHEMA_VERSION,
        source.id(),
        source.endpoint(),
        source.dataParallelRank(),
        source.topic(),
        seq,
        ts,
        ts / 1000.0,
        null,
        null,
        null,
        List.of(events));
  }

  static KvEventBatch marker(KvSource source, String marker, long seq, long ts) {
    boolean gap = marker.equals(KvEventBatch.MARKER_GAP);
    return new KvEventBatch(
        KvEventBatch.SCHEMA_VERSION,
        source.id(),
        source.endpoint(),
        source.dataParallelRank(),
        source.topic(),
        seq,
        ts,
        null,
        marker,
        gap ? Math.max(0, seq - 2) : null,
        gap ? Math.max(0, seq - 1) : null,
        null);
  }

  static byte[] bytes(KvEventBatch batch) {
    return SERDE.toBytes(batch);
  }
}
