package io.prefixlog.analysis.mrc;

import java.util.List;
import java.util.Objects;

/**
 * The analysis of one model's cache, or of all models together ({@link #ALL_MODELS}).
 *
 * @param model the model name, or {@link #ALL_MODELS}
 * @param curve hit rate vs capacity
 * @param engine the engine-reported hit rate over the same requests
 * @param windows the rolling hit rate: the windows in which this model had requests, in order
 */
public record ModelAnalysis(
    String model, Curve curve, EngineTokenTotals engine, List<Window> windows) {
  /** The model name of the overall analysis. */
  public static final String ALL_MODELS = "*";

  public ModelAnalysis {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(curve, "curve");
    Objects.requireNonNull(engine, "engine");
    windows = List.copyOf(windows);
  }
}
