package io.prefixlog.schemas.kv;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Cache statistics of one engine source, keyed by {@code source} on the compacted {@code
 * kv.source-stats}. Totals count since the stream app first saw the source; the per-minute rates
 * cover the last whole minute of engine time. Block lifetimes (stored to removed) are summarised by
 * count and quantiles in milliseconds.
 */
public record SourceStats(
    @JsonProperty("source") String source,
    @JsonProperty("ts") Long ts,
    @JsonProperty("seq") Long seq,
    @JsonProperty("resident_blocks") Long residentBlocks,
    @JsonProperty("resident_tokens") Long residentTokens,
    @JsonProperty("stores_total") Long storesTotal,
    @JsonProperty("removals_total") Long removalsTotal,
    @JsonProperty("clears_total") Long clearsTotal,
    @JsonProperty("stores_per_min") Double storesPerMin,
    @JsonProperty("removals_per_min") Double removalsPerMin,
    @JsonProperty("clears_per_min") Double clearsPerMin,
    @JsonProperty("lifetime_count") Long lifetimeCount,
    @JsonProperty("lifetime_p50_ms") Long lifetimeP50Ms,
    @JsonProperty("lifetime_p90_ms") Long lifetimeP90Ms,
    @JsonProperty("lifetime_p99_ms") Long lifetimeP99Ms,
    @JsonProperty("gaps") Long gaps,
    @JsonProperty("restarts") Long restarts,
    @JsonProperty("blocks_stored_by_session") Map<String, Long> blocksStoredBySession) {

  public SourceStats {
    blocksStoredBySession =
        blocksStoredBySession == null
            ? null
            : Collections.unmodifiableSortedMap(new TreeMap<>(blocksStoredBySession));
  }
}
