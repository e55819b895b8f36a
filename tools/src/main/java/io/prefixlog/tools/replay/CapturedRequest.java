package io.prefixlog.tools.replay;

import java.util.Map;
import java.util.Objects;

/**
 * One captured request as a capture replay sends it again, with what the capture saw of its
 * original answer. {@link #toString()} never shows the body.
 *
 * @param sessionKey the session it belongs to
 * @param seq its turn number in its chain (for a stable order among equal times)
 * @param tsMs when the capture saw it arrive (ms since the epoch)
 * @param path the API path it was sent to ({@code /v1/chat/completions} or {@code /v1/completions})
 * @param requestClass what the comparison groups it under: the endpoint and the model
 * @param headers the captured headers that are sent again ({@link ReplayHeaders})
 * @param body the exact rebuilt and checked body
 * @param latencyMs the original's latency as the capture measured it, or null
 * @param promptTokens the original's {@code prompt_tokens}, or null when not reported
 * @param cachedTokens the original's cached tokens (0 when prompt tokens were reported without
 *     them), or null
 */
record CapturedRequest(
    String sessionKey,
    long seq,
    long tsMs,
    String path,
    String requestClass,
    Map<String, String> headers,
    byte[] body,
    Double latencyMs,
    Long promptTokens,
    Long cachedTokens) {
  CapturedRequest {
    Objects.requireNonNull(sessionKey, "sessionKey");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(requestClass, "requestClass");
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }

  /** Whether the capture saw the engine's usage for it. */
  boolean hasUsage() {
    return promptTokens != null && cachedTokens != null;
  }

  @Override
  public String toString() {
    return "CapturedRequest[sessionKey="
        + sessionKey
        + ", seq="
        + seq
        + ", tsMs="
        + tsMs
        + ", path="
        + path
        + ", class="
        + requestClass
        + ", bodyLen="
        + body.length
        + ", body=<redacted>]";
  }
}
