package io.prefixlog.schemas.request;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Token usage as the engine reported it. {@code cachedTokens} is vLLM's {@code
 * usage.prompt_tokens_details.cached_tokens}; it is absent when the engine did not report it (vLLM
 * omits zero, so absent means "zero or unknown").
 */
public record Usage(
    @JsonProperty("prompt_tokens") Long promptTokens,
    @JsonProperty("completion_tokens") Long completionTokens,
    @JsonProperty("cached_tokens") Long cachedTokens) {}
