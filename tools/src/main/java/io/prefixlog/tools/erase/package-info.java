/**
 * {@code prefixlog erase}: removes a person's sessions from every copy prefixlog keeps — the output
 * topics (tombstones), the stream app's state (an order it obeys), the KV index, the raw inputs
 * already processed, and the Iceberg archive — and reports what is still pending (compaction).
 */
package io.prefixlog.tools.erase;
