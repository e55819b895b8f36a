/**
 * One chunk-hash lookup record per stored turn, keyed by its turn (session_key/chain/seq) and
 * partitioned by session, on {@code chunk.lookups}; the rendering and hashing are {@link
 * io.prefixlog.core.chunk}'s.
 */
package io.prefixlog.streams.lookup;
