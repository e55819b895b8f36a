package io.prefixlog.core.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * One service's metrics: a Prometheus registry with the JVM (memory, GC, threads, class loading)
 * and process (CPU, uptime, file descriptors) meters bound, as every JVM service an operator
 * scrapes is expected to have. Each service of a process (the stream app, the proxy, the KV
 * subscriber) may share one; closing releases the GC listener.
 */
public final class ServiceMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gc;

  private ServiceMetrics(PrometheusMeterRegistry registry, JvmGcMetrics gc) {
    this.registry = registry;
    this.gc = gc;
  }

  /** A registry with the JVM and process meters bound. */
  public static ServiceMetrics create() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(new LintCleanNames());
    // Before any meter registers: a filter added later only warns and applies to nothing before it.
    StoreTagKeys.filters().forEach(filter -> registry.config().meterFilter(filter));
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    return new ServiceMetrics(registry, gc);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
