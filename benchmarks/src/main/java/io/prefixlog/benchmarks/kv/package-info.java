/** KV-cache events: decode and block-index throughput against msgpack-core's own decode. */
package io.prefixlog.benchmarks.kv;
