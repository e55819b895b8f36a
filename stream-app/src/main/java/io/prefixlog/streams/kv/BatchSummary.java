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
    Map<String, Long> storesBySession) {
  BatchSummary {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(lifetimesMs, "lifetimesMs");
    storesBySession = Map.copyOf(storesBySession);
  }

  /** Whether the source was cleared: its statistics are worth publishing at once. */
  boolean cleared() {
    return marker != null || clears > 0;
  }
}
