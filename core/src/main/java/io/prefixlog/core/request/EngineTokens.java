package io.prefixlog.core.request;

import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;

/**
 * The engine's token figures of a captured request, as its response's usage reports them: what the
 * chunk lookups and the delta records both carry, read by one rule so that the two topics agree.
 *
 * @param promptTokens the prompt's tokens; null when the response reported no usage
 * @param cachedTokens the prompt tokens the engine served from its prefix cache; null when unknown
 */
public record EngineTokens(Long promptTokens, Long cachedTokens) {
  private static final EngineTokens UNKNOWN = new EngineTokens(null, null);

  /** The figures of {@code event}'s response; both null when it has no usage. */
  public static EngineTokens of(RawRequestEvent event) {
    ResponseInfo response = event.response();
    if (response == null || response.usage() == null) {
      return UNKNOWN;
    }
    Usage usage = response.usage();
    Long promptTokens = usage.promptTokens();
    Long cachedTokens = usage.cachedTokens();
    // vLLM omits cached_tokens when it is zero; with prompt tokens known, absent means zero.
    if (cachedTokens == null && promptTokens != null) {
      cachedTokens = 0L;
    }
    return new EngineTokens(promptTokens, cachedTokens);
  }
}
