package io.prefixlog.schemas.request;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the capture saw of the response. Every field is optional: a middleware that sees no response
 * leaves the whole object out.
 *
 * @param status HTTP status, absent when the request failed before a status arrived
 * @param latencyMs request start to the last response byte (or the failure)
 * @param ttfbMs request start to the first response byte
 * @param usage token usage, when the engine reported it
 * @param id the engine's response id ({@code chatcmpl-…})
 * @param error a short classification when the exchange failed ({@code upstream_timeout}, {@code
 *     client_disconnect}, …), never a body excerpt
 */
public record ResponseInfo(
    @JsonProperty("status") Integer status,
    @JsonProperty("latency_ms") Double latencyMs,
    @JsonProperty("ttfb_ms") Double ttfbMs,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("id") String id,
    @JsonProperty("error") String error) {}
