/**
 * {@code prefixlog erase}: removes a person's sessions from every copy prefixlog keeps — the output
 * topics (tombstones), the stream app's state (an order it obeys), the KV index, the raw inputs
 * already processed, the dead letters, the Iceberg archive (after its sink has caught up) and a
 * stopped proxy's spill — and reports what is still pending (compaction, a sink behind).
 */
package io.prefixlog.tools.erase;
