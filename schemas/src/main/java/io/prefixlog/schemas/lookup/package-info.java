/** The chunk-hash lookup record (topic {@code chunk.lookups}), LMCache-compatible. */
package io.prefixlog.schemas.lookup;
