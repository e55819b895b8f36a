/**
 * The KV block index and the per-source cache statistics, built from the engines' KV-event batches
 * on {@code kv.events}.
 */
package io.prefixlog.streams.kv;
