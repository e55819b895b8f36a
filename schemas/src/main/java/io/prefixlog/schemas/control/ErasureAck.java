package io.prefixlog.schemas.control;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the stream app did about one {@link EraseRequest}, on {@code erasures} keyed by {@code
 * erase_id}; written in the same exactly-once transaction as the changes it reports, so that an
 * acknowledgement a reader sees ({@code read_committed}) is a change that happened.
 *
 * <p>{@code scope} is {@code session} (from {@code requests.raw}; {@code session_key} set) or
 * {@code kv} (from {@code kv.events}; {@code source} set). {@code outcome}: {@code erased} (state
 * dropped), {@code kept} (the chain has a turn at or after {@code before}: nothing dropped), {@code
 * absent} (no state held: nothing to drop). {@code state_compacted} says whether the store's files
 * were rewritten so that the dropped bytes left this instance's disk at once (otherwise RocksDB
 * drops them at its next compaction of that range).
 */
public record ErasureAck(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("erase_id") String eraseId,
    @JsonProperty("ts") Long ts,
    @JsonProperty("scope") String scope,
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("source") String source,
    @JsonProperty("outcome") String outcome,
    @JsonProperty("chain") String chain,
    @JsonProperty("turns_tombstoned") Long turnsTombstoned,
    @JsonProperty("bases_removed") Long basesRemoved,
    @JsonProperty("request_ids_removed") Long requestIdsRemoved,
    @JsonProperty("blocks_scrubbed") Long blocksScrubbed,
    @JsonProperty("stats_sessions_removed") Long statsSessionsRemoved,
    @JsonProperty("state_compacted") Boolean stateCompacted) {

  public static final int SCHEMA_VERSION = 1;
  public static final String SCOPE_SESSION = "session";
  public static final String SCOPE_KV = "kv";
  public static final String ERASED = "erased";
  public static final String KEPT = "kept";
  public static final String ABSENT = "absent";
}
