package io.prefixlog.streams.kv;

import io.prefixlog.core.metrics.MetricsRegistry;
import java.util.concurrent.atomic.LongAdder;

/** The KV index's counters, registered up front so that they read 0 before the first batch. */
final class KvIndexMetrics {
  static final String BATCHES = "prefixlog_kv_index_batches_total";
  static final String EVENTS = "prefixlog_kv_index_events_total";
  static final String UNKNOWN_REMOVALS = "prefixlog_kv_unknown_removals_total";
  static final String TOMBSTONES = "prefixlog_kv_block_tombstones_total";
  static final String ENTRIES = "prefixlog_kv_block_entries_total";
  static final String STATS = "prefixlog_kv_source_stats_total";

  private final MetricsRegistry registry;
  final LongAdder batches;
  final LongAdder gapMarkers;
  final LongAdder restartMarkers;
  final LongAdder stored;
  final LongAdder removed;
  final LongAdder cleared;
  final LongAdder otherEvents;
  final LongAdder unknownRemovals;
  final LongAdder tombstonesRemoved;
  final LongAdder tombstonesCleared;
  final LongAdder entries;
  final LongAdder stats;

  KvIndexMetrics(MetricsRegistry registry) {
    this.registry = registry;
    String batchHelp = "kv.events records applied to the block index, by kind.";
    this.batches = registry.counter(BATCHES, batchHelp, "kind", "batch");
    this.gapMarkers = registry.counter(BATCHES, batchHelp, "kind", "gap");
    this.restartMarkers = registry.counter(BATCHES, batchHelp, "kind", "restart");
    String eventHelp = "KV events applied to the block index, by type (other: not indexed).";
    this.stored = registry.counter(EVENTS, eventHelp, "type", "BlockStored");
    this.removed = registry.counter(EVENTS, eventHelp, "type", "BlockRemoved");
    this.cleared = registry.counter(EVENTS, eventHelp, "type", "AllBlocksCleared");
    this.otherEvents = registry.counter(EVENTS, eventHelp, "type", "other");
    this.unknownRemovals =
        registry.counter(
            UNKNOWN_REMOVALS,
            "Block removals of a hash (in its medium and group) the index does not hold; nothing"
                + " is emitted for them.");
    String tombstoneHelp =
        "Block index tombstones emitted, by cause (removed: last copy removed; cleared:"
            + " AllBlocksCleared, gap or restart of the source).";
    this.tombstonesRemoved = registry.counter(TOMBSTONES, tombstoneHelp, "cause", "removed");
    this.tombstonesCleared = registry.counter(TOMBSTONES, tombstoneHelp, "cause", "cleared");
    this.entries = registry.counter(ENTRIES, "Block index entries emitted (new or changed).");
    this.stats = registry.counter(STATS, "Source statistics records emitted.");
  }

  MetricsRegistry registry() {
    return registry;
  }

  /** Counts a KV erase order obeyed for one source, by outcome ({@code erased}, {@code absent}). */
  void erasure(String outcome) {
    registry
        .counter(
            "prefixlog_kv_erasures_total",
            "KV erase orders obeyed, one per source, by outcome.",
            "outcome",
            outcome)
        .increment();
  }
}
