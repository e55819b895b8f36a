/**
 * Metrics on Micrometer's Prometheus registry: {@link io.prefixlog.core.metrics.Meters} declares
 * prefixlog's counters, gauges and latency histograms, {@link
 * io.prefixlog.core.metrics.ServiceMetrics} is one process's registry with the JVM and process
 * meters bound, {@link io.prefixlog.core.metrics.MetricsServer} serves {@code /metrics} and {@code
 * /health}.
 */
package io.prefixlog.core.metrics;
