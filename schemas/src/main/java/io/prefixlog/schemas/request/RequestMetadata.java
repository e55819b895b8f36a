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
 * <p>Every capture is a record of its own, retries included: a request that a client or gateway
 * sent again after a failure has a record per attempt, each with its own {@code request_id} and
 * {@code response}, linked by {@code client_request_id} (the client's {@code X-Request-Id}); the
 * latest by {@code ts} is the request's final outcome. Version 1 ({@link #SCHEMA_VERSION_1}) has no
 * {@code client_request_id}.
 *
 * <p>From version 3 a record names its tenant, so that every session of a tenant is found on this
 * topic: a session whose every turn was left out has no delta record to carry it. Version 2 ({@link
 * #SCHEMA_VERSION_2}) has no {@code tenant}.
 *
 * @param clientRequestId the raw event's {@code client_request_id}; absent when the client sent
 *     none, and always in version 1
 * @param turn the key of the request's delta record when its body was kept; absent otherwise
 * @param bodyOmitted why the body was not kept ({@link RawRequestEvent#SAMPLED_OUT}); absent when
 *     it was
 * @param tenant the raw event's recorded tenant ({@link RawRequestEvent#TENANT_HEADER}); absent
 *     when it has none, and always before version 3
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
    @JsonProperty("response") ResponseInfo response,
    @JsonProperty("client_request_id") String clientRequestId,
    @JsonProperty("tenant") String tenant) {

  /** The version written once every reader reads it: with {@code tenant}. */
  public static final int SCHEMA_VERSION = 3;

  /** The version with {@code client_request_id} and without {@code tenant}. */
  public static final int SCHEMA_VERSION_2 = 2;

  /** The first version, without {@code client_request_id}. */
  public static final int SCHEMA_VERSION_1 = 1;

  /**
   * The record of an accepted raw event, in the newest version.
   *
   * @param turn the turn key its body was stored under, or null when the event is metadata-only
   */
  public static RequestMetadata of(RawRequestEvent event, String turn) {
    return of(event, turn, SCHEMA_VERSION);
  }

  /**
   * The record of an accepted raw event in {@code version}, 1, 2 or 3.
   *
   * @param turn the turn key its body was stored under, or null when the event is metadata-only
   */
  public static RequestMetadata of(RawRequestEvent event, String turn, int version) {
    Objects.requireNonNull(event, "event");
    if (version < SCHEMA_VERSION_1 || version > SCHEMA_VERSION) {
      throw new IllegalArgumentException("no request metadata version " + version);
    }
    if ((turn == null) != event.metadataOnly()) {
      throw new IllegalArgumentException(
          "a turn key exactly when the body was kept: turn "
              + turn
              + ", body_omitted "
              + event.bodyOmitted());
    }
    return new RequestMetadata(
        version,
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
        event.response(),
        version == SCHEMA_VERSION_1 ? null : event.clientRequestId(),
        version < SCHEMA_VERSION ? null : event.tenant());
  }

  /** The key of a metadata-only request: {@code session_key/ts/request_id}. */
  public static String sampledOutKey(RawRequestEvent event) {
    return event.sessionKey() + "/" + event.ts() + "/" + event.requestId();
  }
}
