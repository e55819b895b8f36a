package io.prefixlog.schemas.request;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One captured request, schema version 1, keyed by {@code session_key} on {@code requests.raw}.
 *
 * <p>{@code body} holds the exact request bytes (UTF-8 text, or base64 when {@code body_encoding}
 * says so); {@code body_len} and {@code body_sha256} describe those captured bytes. When {@code
 * truncated} is true the request was longer than the capture limit and {@code original_body_len}
 * gives its full length when known. {@link #toString()} never shows the body.
 *
 * <p>A <em>metadata-only</em> event ({@code body_omitted} set, today always {@value #SAMPLED_OUT})
 * carries no body: {@code body} and {@code body_encoding} are absent, {@code body_len} and {@code
 * body_sha256} still describe the bytes the producer saw, and {@code prompt_chunks} holds their
 * chunk hashes, computed by the producer exactly as the stream app would have, so that the chunk
 * lookups still cover every request.
 *
 * <p>{@code upstream} is where the capture proxy forwarded the request ({@code
 * scheme://host:port}); with one proxy per engine, the engine that served it.
 *
 * <p>{@code capture_id} identifies this one capture: every resend of it (a spill resend, a producer
 * retry) carries it, no other capture does; the capture proxy writes it as {@code request_id} too,
 * so that a reader that knows no {@code capture_id} still tells captures apart. {@code
 * client_request_id} is the client's {@code X-Request-Id}, the same on every attempt of a request
 * that a client or gateway retried. Both are absent from events of producers that do not know them
 * (middlewares, {@code kcat}, earlier bridges); {@link #captureIdentity()} says what identifies
 * such an event.
 */
public record RawRequestEvent(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("request_id") String requestId,
    @JsonProperty("ts") Long ts,
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("session_key_source") String sessionKeySource,
    @JsonProperty("client_addr") String clientAddr,
    @JsonProperty("user_agent") String userAgent,
    @JsonProperty("headers") Map<String, String> headers,
    @JsonProperty("method") String method,
    @JsonProperty("path") String path,
    @JsonProperty("model") String model,
    @JsonProperty("body") String body,
    @JsonProperty("body_encoding") String bodyEncoding,
    @JsonProperty("body_len") Long bodyLen,
    @JsonProperty("body_sha256") String bodySha256,
    @JsonProperty("truncated") Boolean truncated,
    @JsonProperty("original_body_len") Long originalBodyLen,
    @JsonProperty("response") ResponseInfo response,
    @JsonProperty("body_omitted") String bodyOmitted,
    @JsonProperty("prompt_chunks") PromptChunks promptChunks,
    @JsonProperty("upstream") String upstream,
    @JsonProperty("capture_id") String captureId,
    @JsonProperty("client_request_id") String clientRequestId) {

  public static final int SCHEMA_VERSION = 1;

  /**
   * {@code body_omitted} of a request whose session the capture sampling did not select
   * (PREFIXLOG_SAMPLE_SESSIONS), or that the engine refused (401, 403: {@code response.status}
   * tells them apart), whose body is never kept.
   */
  public static final String SAMPLED_OUT = "sampled_out";

  /**
   * The captured header a request's tenant id is recorded under: the capture proxy writes it when
   * {@code PREFIXLOG_TENANT} is set, and drops a client's own; a producer of the ingest endpoint
   * may write it. The stream app copies it into the request's metadata ({@link
   * RequestMetadata#tenant}).
   */
  public static final String TENANT_HEADER = "x-prefixlog-tenant";

  public RawRequestEvent {
    // Sorted, so that the same event always serialises to the same bytes.
    headers = headers == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(headers));
  }

  /**
   * What tells this capture from every other: its {@code capture_id} when the producer gave one,
   * else its {@code request_id} and capture time ({@code request_id@ts}), the same for every resend
   * of one event and different for a client's retry (captured later) or for another request under a
   * reused id captured at another millisecond. A dedup key, never shown as an id.
   */
  public String captureIdentity() {
    return captureId != null ? captureId : requestId + "@" + ts;
  }

  /** True when the event carries no body, only metadata (and possibly its chunk hashes). */
  public boolean metadataOnly() {
    return bodyOmitted != null;
  }

  /**
   * The recorded tenant ({@link #TENANT_HEADER}), or null when the request has none: an empty
   * value, which a producer other than the proxy may write, names no tenant.
   */
  public String tenant() {
    String tenant = headers == null ? null : headers.get(TENANT_HEADER);
    return tenant == null || tenant.isEmpty() ? null : tenant;
  }

  /** This event with another {@code path} (one without credential parameters). */
  public RawRequestEvent withPath(String path) {
    return new RawRequestEvent(
        schemaVersion,
        requestId,
        ts,
        sessionKey,
        sessionKeySource,
        clientAddr,
        userAgent,
        headers,
        method,
        path,
        model,
        body,
        bodyEncoding,
        bodyLen,
        bodySha256,
        truncated,
        originalBodyLen,
        response,
        bodyOmitted,
        promptChunks,
        upstream,
        captureId,
        clientRequestId);
  }

  @Override
  public String toString() {
    return "RawRequestEvent[requestId="
        + requestId
        + ", sessionKey="
        + sessionKey
        + ", model="
        + model
        + ", bodyLen="
        + bodyLen
        + (bodyOmitted == null ? ", body=<redacted>]" : ", bodyOmitted=" + bodyOmitted + "]");
  }
}
