/** KV-cache event batches, block index entries and per-source statistics. */
package io.prefixlog.schemas.kv;
