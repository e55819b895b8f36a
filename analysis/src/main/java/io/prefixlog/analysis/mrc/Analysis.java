package io.prefixlog.analysis.mrc;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one pass computed.
 *
 * @param overall all models together: at capacity C, every model's own cache holds C chunks
 * @param models one entry per model name, sorted by name
 * @param sampling the sampling used (exact or SHARDS)
 * @param windowing how the rolling hit rate was cut
 * @param windowCapacities the capacities the windows report, ascending
 * @param outOfOrderRequests requests whose timestamp was earlier than one before them
 */
public record Analysis(
    ModelAnalysis overall,
    List<ModelAnalysis> models,
    Sampling sampling,
    Windowing windowing,
    List<Long> windowCapacities,
    long outOfOrderRequests) {

  public Analysis {
    Objects.requireNonNull(overall, "overall");
    models = List.copyOf(models);
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(windowing, "windowing");
    windowCapacities = List.copyOf(windowCapacities);
  }

  public Optional<ModelAnalysis> model(String name) {
    return models.stream().filter(m -> m.model().equals(name)).findFirst();
  }
}
