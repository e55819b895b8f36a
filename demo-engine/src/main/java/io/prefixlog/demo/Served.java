package io.prefixlog.demo;

/**
 * What the demo engine answered one completion request with, as the client saw it.
 *
 * @param requestId the request id it used: the client's {@code X-Request-Id}, else the body's
 *     {@code request_id}, else a random one (vLLM's order)
 * @param responseId the response's {@code id}: {@code chatcmpl-<requestId>} or {@code
 *     cmpl-<requestId>}, as vLLM forms it
 * @param path the request path
 * @param stream whether the answer was an SSE stream
 * @param usageSent whether the usage object reached the client (a stream sends it only when asked
 *     with {@code stream_options.include_usage})
 * @param promptTokens prompt tokens (rendered prompt bytes / 4, rounded up)
 * @param completionTokens completion tokens (answer bytes / 4, rounded up)
 * @param cachedTokens prompt tokens found in the prefix cache
 */
public record Served(
    String requestId,
    String responseId,
    String path,
    boolean stream,
    boolean usageSent,
    long promptTokens,
    long completionTokens,
    long cachedTokens) {}
