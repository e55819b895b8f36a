package io.prefixlog.analysis.mrc;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link OptAnalyzer} computed: the optimal (Belady/MIN) hit rate at every capacity, per model
 * and overall, in the same form as the LRU {@link Curve}s so that both read alike.
 *
 * @param overall all models together: at capacity C every model's own MIN cache holds C chunks
 * @param models one curve per model name, sorted by name
 */
public record OptimalCurves(Curve overall, Map<String, Curve> models) {
  public OptimalCurves {
    Objects.requireNonNull(overall, "overall");
    models = Collections.unmodifiableMap(new LinkedHashMap<>(models));
  }

  /** The curve of a model, or of all models for {@link ModelAnalysis#ALL_MODELS}. */
  public Optional<Curve> curve(String model) {
    return ModelAnalysis.ALL_MODELS.equals(model)
        ? Optional.of(overall)
        : Optional.ofNullable(models.get(model));
  }
}
