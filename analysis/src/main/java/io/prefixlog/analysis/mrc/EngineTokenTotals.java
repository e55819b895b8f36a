package io.prefixlog.analysis.mrc;

/**
 * The prompt and cached token counts the engine itself reported, summed over requests: its actual
 * prefix-cache hit rate, beside the predicted one.
 *
 * @param requests requests that carried both the engine's prompt and cached token counts
 * @param promptTokens Σ prompt tokens of those requests
 * @param cachedTokens Σ cached prompt tokens of those requests
 */
public record EngineTokenTotals(long requests, long promptTokens, long cachedTokens) {
  static final EngineTokenTotals NONE = new EngineTokenTotals(0, 0, 0);

  /** Σ cached / Σ prompt, or NaN when no request reported both (or the prompts were empty). */
  public double hitRate() {
    return promptTokens == 0 ? Double.NaN : (double) cachedTokens / promptTokens;
  }

  public boolean known() {
    return requests > 0;
  }

  EngineTokenTotals plus(EngineTokenTotals other) {
    return new EngineTokenTotals(
        requests + other.requests,
        promptTokens + other.promptTokens,
        cachedTokens + other.cachedTokens);
  }
}
