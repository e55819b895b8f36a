/** Counters and gauges in Prometheus' text format, served over HTTP with /metrics and /health. */
package io.prefixlog.core.metrics;
