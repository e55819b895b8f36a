package io.prefixlog.core.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * A minimal metrics registry rendering Prometheus' text exposition format (version 0.0.4).
 *
 * <p>Counters are {@link LongAdder}s, cheap on hot paths; a counter with labels is one series per
 * label value, created on first use. Gauges are read when scraped. Thread-safe.
 */
public final class MetricsRegistry {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  private final Map<String, Family> families = new ConcurrentHashMap<>();

  /** A counter without labels. */
  public LongAdder counter(String name, String help) {
    return family(name, help, "counter").series("");
  }

  /**
   * One series of a counter with one label, e.g. {@code counter("x_total", "…", "reason",
   * "invalid_json")}.
   */
  public LongAdder counter(String name, String help, String label, String value) {
    return family(name, help, "counter").series(label + "=\"" + escape(value) + "\"");
  }

  /** One series of a counter with two labels, e.g. {@code {topic="…",reason="…"}}. */
  public LongAdder counter(
      String name, String help, String label1, String value1, String label2, String value2) {
    return family(name, help, "counter")
        .series(label1 + "=\"" + escape(value1) + "\"," + label2 + "=\"" + escape(value2) + "\"");
  }

  /** A gauge read at scrape time. */
  public void gauge(String name, String help, DoubleSupplier value) {
    Objects.requireNonNull(value, "value");
    family(name, help, "gauge").gauge = value;
  }

  /** The value of a counter series (tests, summaries); 0 when it was never touched. */
  public long value(String name, String labelOrEmpty) {
    Family family = families.get(name);
    if (family == null) {
      return 0;
    }
    LongAdder adder = family.series.get(labelOrEmpty);
    return adder == null ? 0 : adder.sum();
  }

  /** Every family in the text format, sorted by name. */
  public String render() {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(families)
        .forEach(
            (name, family) -> {
              out.append("# HELP ").append(name).append(' ').append(family.help).append('\n');
              out.append("# TYPE ").append(name).append(' ').append(family.type).append('\n');
              if (family.gauge != null) {
                out.append(name)
                    .append(' ')
                    .append(format(family.gauge.getAsDouble()))
                    .append('\n');
              }
              new TreeMap<>(family.series)
                  .forEach(
                      (labels, adder) -> {
                        out.append(name);
                        if (!labels.isEmpty()) {
                          out.append('{').append(labels).append('}');
                        }
                        out.append(' ').append(adder.sum()).append('\n');
                      });
            });
    return out.toString();
  }

  private Family family(String name, String help, String type) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a Prometheus metric name: " + name);
    }
    Family family = families.computeIfAbsent(name, n -> new Family(help, type));
    if (!family.type.equals(type)) {
      throw new IllegalArgumentException(name + " is already a " + family.type);
    }
    return family;
  }

  private static String format(double value) {
    return value == Math.rint(value) && !Double.isInfinite(value)
        ? Long.toString((long) value)
        : Double.toString(value);
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static final class Family {
    final String help;
    final String type;
    final Map<String, LongAdder> series = new ConcurrentHashMap<>();
    volatile DoubleSupplier gauge;

    Family(String help, String type) {
      this.help = help;
      this.type = type;
    }

    LongAdder series(String labels) {
      return series.computeIfAbsent(labels, l -> new LongAdder());
    }
  }
}
