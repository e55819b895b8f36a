package io.prefixlog.schemas.kv;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One engine batch (or a bridge marker), keyed by {@code source} on {@code kv.events}.
 *
 * <p>{@code source} is the engine endpoint, data-parallel rank and topic. {@code seq} is the
 * engine's sequence number; {@code engine_ts} the engine's batch time in Unix seconds; {@code ts}
 * when the bridge received it (epoch ms). A {@code marker} of {@code gap} (sequence numbers {@code
 * missing_from}..{@code missing_to} lost for good) or {@code restart} (the sequence went backwards)
 * tells consumers that the index for this source must be cleared and rebuilt; a marker has no
 * events.
 */
public record KvEventBatch(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("source") String source,
    @JsonProperty("endpoint") String endpoint,
    @JsonProperty("data_parallel_rank") Integer dataParallelRank,
    @JsonProperty("topic") String topic,
    @JsonProperty("seq") Long seq,
    @JsonProperty("ts") Long ts,
    @JsonProperty("engine_ts") Double engineTs,
    @JsonProperty("marker") String marker,
    @JsonProperty("missing_from") Long missingFrom,
    @JsonProperty("missing_to") Long missingTo,
    @JsonProperty("events") List<KvEvent> events) {

  public static final int SCHEMA_VERSION = 1;
  public static final String MARKER_GAP = "gap";
  public static final String MARKER_RESTART = "restart";

  public KvEventBatch {
    events = events == null ? null : List.copyOf(events);
  }
}
