package io.prefixlog.streams.upgrade;

/**
 * A format the stream app writes and a process other than the writer reads: another instance of the
 * app (store values come back through the changelogs when a task moves, the repartitioned requests
 * go to whichever instance owns the state partition) or a consumer of the outputs ({@code
 * reconstruct}, the archive, the UI). During a rolling upgrade instances of two builds share the
 * work, so each of these is written in a version every member can read; {@link FormatGenerations}
 * says which.
 */
public enum WireFormat {
  /** {@code session-state} store values ({@code SessionStateCodec}). */
  SESSION_STATE,
  /** {@code session-bases} store values ({@code BaseRecordCodec}). */
  SESSION_BASE,
  /**
   * {@code session-bases} values under {@code ~erasure/} keys: an erase order under way ({@code
   * ErasureJob}). Read only by builds that write it: a build from before it never reads those keys
   * (no session's prefix holds them), so it is in every generation at the version it began with.
   */
  ERASURE_JOB,
  /**
   * {@code session-request-ids} store entries ({@code SeenRequest}): version 1 keyed by {@code
   * session_key/request_id}; version 2 keyed by the capture's identity, the entry under the request
   * id alone (which version 1 builds look up) no longer written. The values are the same.
   */
  SEEN_REQUEST,
  /** {@code kv-block-index} store values ({@code BlockState}). */
  KV_BLOCK_STATE,
  /**
   * {@code kv-block-index} values under {@code ~kv-clear/} keys: a clear whose blocks are still
   * being deleted ({@code ClearJob}; its marks under {@code <source>/~new/} are empty). Like {@link
   * #ERASURE_JOB}, read only by builds that write it.
   */
  KV_CLEAR_JOB,
  /** {@code kv-source-stats} store values ({@code SourceStatsState}). */
  KV_SOURCE_STATS_STATE,
  /**
   * The {@code prefixlog.source} header the raw requests carry through the repartition topic
   * ({@code SourcePosition}).
   */
  SOURCE_POSITION,
  /** {@code session.deltas} values ({@code DeltaRecord}, {@code schema_version}). */
  DELTA_RECORD,
  /** {@code chunk.lookups} values ({@code ChunkLookupRecord}). */
  CHUNK_LOOKUP,
  /** {@code requests.metadata} values ({@code RequestMetadata}, {@code schema_version}). */
  REQUEST_METADATA,
  /** {@code dlq} values ({@code DeadLetter}). */
  DEAD_LETTER,
  /** {@code erasures} values ({@code ErasureAck}). */
  ERASURE_ACK,
  /** {@code kv.block-index} values ({@code BlockIndexEntry}). */
  BLOCK_INDEX_ENTRY,
  /** {@code kv.source-stats} values ({@code SourceStats}). */
  SOURCE_STATS
}
