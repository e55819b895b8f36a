package io.prefixlog.core.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Keeps every prefixlog endpoint within what {@code promtool check metrics} (Prometheus' own lint)
 * accepts, which the Kafka clients' and Kafka Streams' meters do not by themselves:
 *
 * <ul>
 *   <li>a gauge ending in {@code -count} (a name Prometheus reserves for histograms and summaries)
 *       is renamed: {@code kafka_producer_connection_count} becomes {@code
 *       kafka_producer_connections}, Micrometer's {@code system_cpu_count} {@code system_cpus};
 *   <li>meters in nanoseconds or milliseconds ({@code io-time-ns-total}, {@code
 *       io-wait-time-ns-avg}, {@code start-time-ms}, Micrometer's {@code process.cpu.time}) are not
 *       exported: Prometheus wants seconds, a filter can rename but not rescale, and each has an
 *       exported neighbour (the {@code io-ratio}/{@code io-wait-ratio} gauges, {@code
 *       process_cpu_usage}).
 * </ul>
 *
 * The README lists these differences from Kafka's metric names.
 */
final class LintCleanNames implements MeterFilter {
  private static final Set<String> SUB_SECOND_UNITS = Set.of("ns", "ms");
  private static final Pattern SUB_SECOND_TOKEN = Pattern.compile("\\.(ns|ms)(\\.|$)");

  @Override
  public MeterFilterReply accept(Meter.Id id) {
    boolean subSecond =
        SUB_SECOND_TOKEN.matcher(id.getName()).find()
            || (id.getBaseUnit() != null && SUB_SECOND_UNITS.contains(id.getBaseUnit()));
    return subSecond ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
  }

  @Override
  public Meter.Id map(Meter.Id id) {
    boolean summaryLike =
        id.getType() == Meter.Type.TIMER
            || id.getType() == Meter.Type.DISTRIBUTION_SUMMARY
            || id.getType() == Meter.Type.LONG_TASK_TIMER;
    if (summaryLike) {
      return id;
    }
    String name = id.getName();
    if (name.endsWith(".count")) {
      String stem = name.substring(0, name.length() - ".count".length());
      name = stem.endsWith("connection") || stem.endsWith("cpu") ? stem + "s" : stem + ".number";
    }
    String description = id.getDescription();
    if (description == null || description.isBlank()) {
      // A few Kafka client metrics come without a description, which the lint refuses.
      description = "Kafka metric " + id.getName() + " (no description given by Kafka).";
    }
    if (name.equals(id.getName()) && description.equals(id.getDescription())) {
      return id;
    }
    return new Meter.Id(
        name, Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
  }
}
