package io.prefixlog.tools.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token usage an OpenAI-compatible engine reported in its answer, read as the capture proxy
 * reads it: {@code usage.prompt_tokens} and {@code usage.prompt_tokens_details.cached_tokens} of a
 * JSON answer, or of the last SSE event that carries a usage object (a stream sent with {@code
 * stream_options.include_usage}).
 *
 * @param promptTokens the prompt's tokens
 * @param cachedTokens the prompt's tokens the engine found cached; vLLM omits zero, so with prompt
 *     tokens known an absent count is 0, as the stream app records it
 */
record AnswerUsage(long promptTokens, long cachedTokens) {
  private static final Logger LOGGER = LoggerFactory.getLogger(AnswerUsage.class);

  /** The usage of an answer's body, or null when it has none (or is not readable JSON). */
  static AnswerUsage parse(byte[] body, boolean sse) {
    JsonNode usage = null;
    try {
      if (!sse) {
        usage = Json.mapper().readTree(body).path("usage");
      } else {
        String text = new String(body, StandardCharsets.UTF_8);
        for (String event : text.split("\n\n")) {
          if (event.startsWith("data: {") && event.contains("\"usage\"")) {
            JsonNode candidate = Json.mapper().readTree(event.substring(6)).path("usage");
            if (candidate.isObject()) {
              usage = candidate;
            }
          }
        }
      }
    } catch (IOException e) {
      // Never the body itself: it may quote the prompt.
      LOGGER.debug("answer without readable usage: {}", e.getClass().getSimpleName());
      return null;
    }
    if (usage == null || !usage.isObject() || !usage.path("prompt_tokens").canConvertToLong()) {
      return null;
    }
    return new AnswerUsage(
        usage.path("prompt_tokens").asLong(),
        usage.path("prompt_tokens_details").path("cached_tokens").asLong(0));
  }
}
