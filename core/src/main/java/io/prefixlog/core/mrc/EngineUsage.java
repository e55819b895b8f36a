package io.prefixlog.core.mrc;

/**
 * What the engine itself reported: its actual prefix-cache hit rate, beside the predicted one.
 *
 * @param requests requests that carried both the engine's prompt and cached token counts
 * @param promptTokens Σ prompt tokens of those requests
 * @param cachedTokens Σ cached prompt tokens of those requests
 */
public record EngineUsage(long requests, long promptTokens, long cachedTokens) {
  static final EngineUsage NONE = new EngineUsage(0, 0, 0);

  /** Σ cached / Σ prompt, or NaN when no request reported both (or the prompts were empty). */
  public double hitRate() {
    return promptTokens == 0 ? Double.NaN : (double) cachedTokens / promptTokens;
  }

  public boolean known() {
    return requests > 0;
  }

  EngineUsage plus(EngineUsage other) {
    return new EngineUsage(
        requests + other.requests,
        promptTokens + other.promptTokens,
        cachedTokens + other.cachedTokens);
  }
}
