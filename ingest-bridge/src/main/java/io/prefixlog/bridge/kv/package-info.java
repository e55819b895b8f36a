/**
 * The vLLM KV-event subscriber: ZMQ SUB per engine publisher, sequence tracking with replay, gap
 * and restart markers, dead letters, and one ordered Kafka producer for {@code kv.events}.
 */
package io.prefixlog.bridge.kv;
