/**
 * Pipelines end to end on a real broker: session deltas (replay, stream app, rebuild) and KV events
 * (Python vLLM-format publisher, bridge, stream app, block index).
 */
package io.prefixlog.systemtests.pipeline;
