/**
 * vLLM KV-cache events: the msgpack batch decoder (every layout vLLM shipped), source ids and the
 * bridge's gap and restart markers.
 */
package io.prefixlog.core.kv;
