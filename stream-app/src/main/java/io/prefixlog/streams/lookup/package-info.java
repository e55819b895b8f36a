/**
 * One chunk-hash lookup record per request, keyed by request_id and partitioned by session, on
 * {@code chunk.lookups}; the rendering and hashing are {@link io.prefixlog.core.chunk}'s.
 */
package io.prefixlog.streams.lookup;
