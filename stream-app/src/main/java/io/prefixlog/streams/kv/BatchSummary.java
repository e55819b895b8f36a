package io.prefixlog.streams.kv;

import java.util.Map;
import java.util.Objects;

/**
 * What one {@code kv.events} record did to the index of its source, handed from the block-index
 * processor to the source-statistics processor in memory (never written to a topic).
 *
 * @param source the source id
 * @param seq the batch's engine sequence number
 * @param ts the bridge's receive time, epoch ms
 * @param engineMs the engine's batch time in epoch ms (the receive time for markers)
 * @param marker {@code gap}, {@code restart} or null
 * @param stores blocks stored (one per hash of every BlockStored)
 * @param removals blocks removed (one per hash of every BlockRemoved, known or not)
 * @param clears AllBlocksCleared events
 * @param residentBlocksChange change of the distinct hashes held
 * @param residentTokensChange change of the tokens they cover
 * @param lifetimesMs first store to last removal, of every hash whose last copy was removed
 * @param storesBySession blocks stored per engine-reported session id
 * @param erasure an erase order for the source instead of a batch (everything else zero), or null
 * @param residentReset whether the batch cleared the source: nothing was resident before the
 *     changes above, which count from the (last) clear on
 * @param expired the source was silent past {@code PREFIXLOG_KV_SOURCE_EXPIRY} and is expired
 *     instead of a batch (everything else zero): its statistics go
 */
record BatchSummary(
    String source,
    long seq,
    long ts,
    long engineMs,
    String marker,
    long stores,
    long removals,
    long clears,
    long residentBlocksChange,
    long residentTokensChange,
    long[] lifetimesMs,
    Map<String, Long> storesBySession,
    KvErasure erasure,
    boolean residentReset,
    boolean expired) {
  BatchSummary {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(lifetimesMs, "lifetimesMs");
    storesBySession = Map.copyOf(storesBySession);
  }

  /** An erase order carried out on the source's blocks. */
  static BatchSummary of(String source, long ts, KvErasure erasure) {
    return new BatchSummary(
        source, -1, ts, ts, null, 0, 0, 0, 0, 0, new long[0], Map.of(), erasure, false, false);
  }

  /** The source is expired ({@link SourceSilence}): its statistics are deleted. */
  static BatchSummary expired(String source, long ts) {
    return new BatchSummary(
        source, -1, ts, ts, null, 0, 0, 0, 0, 0, new long[0], Map.of(), null, true, true);
  }

  /** Whether the source was cleared: its statistics are worth publishing at once. */
  boolean cleared() {
    return marker != null || clears > 0;
  }
}
