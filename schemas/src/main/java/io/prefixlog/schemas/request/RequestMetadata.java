package io.prefixlog.schemas.request;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * What prefixlog keeps of every request, whether or not its body was kept: identity, size and
 * digest of the body, and the response (status, latency, usage, cached tokens). Written by the
 * stream app on {@code requests.metadata} (compacted) for every raw event it accepts, so latency
 * and usage statistics stay complete under capture sampling.
 *
 * <p>Keyed by the request's turn, {@code session_key/chain/seq}, when its body was kept (the key of
 * its delta record), and by {@code session_key/ts/request_id} when it was not ({@code body_omitted}
 * set): a sampled-out request has no turn. Both start with {@code session_key/}, so a session's
 * records are found, partitioned and erased like its turns. Holds no body, no header and no client
 * address.
 *
 * @param turn the key of the request's delta record when its body was kept; absent otherwise
 * @param bodyOmitted why the body was not kept ({@link RawRequestEvent#SAMPLED_OUT}); absent when
 *     it was
 */
public record RequestMetadata(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("request_id") String requestId,
    @JsonProperty("ts") Long ts,
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("session_key_source") String sessionKeySource,
    @JsonProperty("method") String method,
    @JsonProperty("path") String path,
    @JsonProperty("model") String model,
    @JsonProperty("body_len") Long bodyLen,
    @JsonProperty("body_sha256") String bodySha256,
    @JsonProperty("truncated") Boolean truncated,
    @JsonProperty("turn") String turn,
    @JsonProperty("body_omitted") String bodyOmitted,
    @JsonProperty("response") ResponseInfo response) {

  public static final int SCHEMA_VERSION = 1;

  /**
   * The record of an accepted raw event.
   *
   * @param turn the turn key its body was stored under, or null when the event is metadata-only
   */
  public static RequestMetadata of(RawRequestEvent event, String turn) {
    Objects.requireNonNull(event, "event");
    if ((turn == null) != event.metadataOnly()) {
      throw new IllegalArgumentException(
          "a turn key exactly when the body was kept: turn "
              + turn
              + ", body_omitted "
              + event.bodyOmitted());
    }
    return new RequestMetadata(
        SCHEMA_VERSION,
        event.requestId(),
        event.ts(),
        event.sessionKey(),
        event.sessionKeySource(),
        event.method(),
        event.path(),
        event.model(),
        event.bodyLen(),
        event.bodySha256(),
        Boolean.TRUE.equals(event.truncated()) ? Boolean.TRUE : null,
        turn,
        event.bodyOmitted(),
        event.response());
  }

  /** The key of a metadata-only request: {@code session_key/ts/request_id}. */
  public static String sampledOutKey(RawRequestEvent event) {
    return event.sessionKey() + "/" + event.ts() + "/" + event.requestId();
  }
}
