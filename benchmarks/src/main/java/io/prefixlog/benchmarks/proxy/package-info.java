/**
 * The capture-proxy latency benchmark: wrk against an upstream that answers after 50 ms, direct,
 * through a tuned nginx and through prefixlog's CaptureProxy with Kafka running.
 */
package io.prefixlog.benchmarks.proxy;
