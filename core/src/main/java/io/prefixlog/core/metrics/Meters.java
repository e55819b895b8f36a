package io.prefixlog.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.noop.NoopTimer;
import io.micrometer.core.instrument.search.Search;
import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * prefixlog's meters, declared with the names they are exposed under.
 *
 * <p>Names are given as Prometheus sees them ({@code prefixlog_turns_total}): Micrometer's
 * Prometheus naming keeps them, so the names operators' dashboards use did not change when the
 * hand-written registry went. A latency histogram is named without its unit ({@code
 * prefixlog_proxy_ttfb}); Prometheus sees {@code prefixlog_proxy_ttfb_seconds_bucket}, {@code
 * _count}, {@code _sum} and {@code _max}.
 */
public final class Meters {
  private Meters() {}

  /**
   * A counter; {@code tags} are label/value pairs, e.g. {@code counter(r, "x_total", "…", "reason",
   * "invalid_json")}. Registering the same name and tags again returns the same counter.
   */
  public static Counter counter(MeterRegistry registry, String name, String help, String... tags) {
    return Counter.builder(name).description(help).tags(tags).register(registry);
  }

  /** A gauge read at scrape time (held strongly: the supplier lives as long as the registry). */
  public static void gauge(
      MeterRegistry registry, String name, String help, DoubleSupplier value, String... tags) {
    Objects.requireNonNull(value, "value");
    Gauge.builder(name, value::getAsDouble)
        .description(help)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  /**
   * A latency histogram with explicit bucket bounds (service-level objectives), not Micrometer's
   * percentile histogram: a dozen buckets cost a dozen counters per series, where the percentile
   * histogram's ~70 would multiply every scrape and every {@code histogram_quantile}. When {@code
   * enabled} is false the timer records nothing (no clock reads are saved: the call sites read the
   * clock anyway), which is how the proxy benchmark measures what the histograms cost.
   */
  public static Timer latency(
      MeterRegistry registry, String name, String help, boolean enabled, Duration... buckets) {
    if (!enabled) {
      return new NoopTimer(new Meter.Id(name, Tags.empty(), null, help, Meter.Type.TIMER));
    }
    return Timer.builder(name).description(help).serviceLevelObjectives(buckets).register(registry);
  }

  /** Histogram bucket bounds given in milliseconds (fractions allowed). */
  public static Duration[] millis(double... bounds) {
    Duration[] durations = new Duration[bounds.length];
    for (int i = 0; i < bounds.length; i++) {
      durations[i] = Duration.ofNanos(Math.round(bounds[i] * 1e6));
    }
    return durations;
  }

  /**
   * The count of a counter series (tests, summaries); 0 when it was never registered. {@code tags}
   * narrows by label/value pairs; without tags, all series of the name are summed.
   */
  public static long count(MeterRegistry registry, String name, String... tags) {
    Search search = registry.find(name).tags(tags);
    return (long) search.counters().stream().mapToDouble(Counter::count).sum();
  }

  /** The value of a gauge, or NaN when it is not registered. */
  public static double gaugeValue(MeterRegistry registry, String name, String... tags) {
    Gauge gauge = registry.find(name).tags(tags).gauge();
    return gauge == null ? Double.NaN : gauge.value();
  }
}
