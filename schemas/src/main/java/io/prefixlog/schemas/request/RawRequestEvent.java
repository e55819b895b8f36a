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
    @JsonProperty("response") ResponseInfo response) {

  public static final int SCHEMA_VERSION = 1;

  public RawRequestEvent {
    // Sorted, so that the same event always serialises to the same bytes.
    headers = headers == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(headers));
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
        + ", body=<redacted>]";
  }
}
