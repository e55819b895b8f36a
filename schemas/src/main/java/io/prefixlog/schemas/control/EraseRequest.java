package io.prefixlog.schemas.control;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * An order to erase a session's state, written by {@code prefixlog erase} with the {@link
 * ControlHeaders} mark.
 *
 * <ul>
 *   <li>On {@code requests.raw}, keyed by {@code session_key}: the task that owns the session drops
 *       its state (the current chain's bases, seq counter and dedup entries), writes tombstones for
 *       the current chain's delta and lookup keys, and acknowledges. The session's next turn starts
 *       a new chain.
 *   <li>On {@code kv.events}, keyed by a source: that source's block index and statistics forget
 *       the engine-reported session ids whose SHA-256 digests {@code kv_session_id_sha256} lists
 *       (blocks are kept, their session id cleared). Digests, not the ids: an order must not
 *       publish again, on a topic the archive reads, the identifiers it erases.
 * </ul>
 *
 * <p>{@code before} (epoch ms) narrows a session order to a chain whose last turn came before it: a
 * chain with a later turn is kept, since each turn of a chain repeats the earlier turns' messages
 * and only whole chains can go.
 */
public record EraseRequest(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("erase_id") String eraseId,
    @JsonProperty("ts") Long ts,
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("kv_session_id_sha256") List<String> kvSessionIdSha256,
    @JsonProperty("before") Long before) {

  public static final int SCHEMA_VERSION = 1;

  public EraseRequest {
    kvSessionIdSha256 = kvSessionIdSha256 == null ? null : List.copyOf(kvSessionIdSha256);
  }

  /** An order for one session's state, on {@code requests.raw}. */
  public static EraseRequest forSession(String eraseId, long ts, String sessionKey, Long before) {
    return new EraseRequest(SCHEMA_VERSION, eraseId, ts, sessionKey, null, before);
  }

  /**
   * An order for a source's KV index, on {@code kv.events}.
   *
   * @param kvSessionIdSha256 lower-case hex SHA-256 of each session id (UTF-8) to forget
   */
  public static EraseRequest forKv(String eraseId, long ts, List<String> kvSessionIdSha256) {
    return new EraseRequest(SCHEMA_VERSION, eraseId, ts, null, kvSessionIdSha256, null);
  }
}
