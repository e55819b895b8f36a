/**
 * Bytes per turn and encode time of prefixlog's session deltas, side by side with gzip and {@code
 * zstd --patch-from} on the bundled corpora.
 */
package io.prefixlog.benchmarks.delta;
