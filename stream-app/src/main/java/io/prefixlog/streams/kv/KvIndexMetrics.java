package io.prefixlog.streams.kv;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.prefixlog.core.metrics.Meters;
import java.util.concurrent.TimeUnit;

/** The KV index's counters, registered up front so that they read 0 before the first batch. */
final class KvIndexMetrics {
  static final String BATCHES = "prefixlog_kv_index_batches_total";
  static final String EVENTS = "prefixlog_kv_index_events_total";
  static final String UNKNOWN_REMOVALS = "prefixlog_kv_unknown_removals_total";
  static final String TOMBSTONES = "prefixlog_kv_block_tombstones_total";
  static final String ENTRIES = "prefixlog_kv_block_entries_total";
  static final String STATS = "prefixlog_kv_source_stats_total";
  static final String SOURCES_EXPIRED = "prefixlog_kv_sources_expired_total";

  private final MeterRegistry registry;
  final Counter batches;
  final Counter gapMarkers;
  final Counter restartMarkers;
  final Counter stored;
  final Counter removed;
  final Counter cleared;
  final Counter otherEvents;
  final Counter unknownRemovals;
  final Counter tombstonesRemoved;
  final Counter tombstonesCleared;
  final Counter entries;
  final Counter stats;
  final Counter sourcesExpired;
  private final Timer eventAge;

  KvIndexMetrics(MeterRegistry registry) {
    this.registry = registry;
    String batchHelp = "kv.events records applied to the block index, by kind.";
    this.batches = Meters.counter(registry, BATCHES, batchHelp, "kind", "batch");
    this.gapMarkers = Meters.counter(registry, BATCHES, batchHelp, "kind", "gap");
    this.restartMarkers = Meters.counter(registry, BATCHES, batchHelp, "kind", "restart");
    String eventHelp = "KV events applied to the block index, by type (other: not indexed).";
    this.stored = Meters.counter(registry, EVENTS, eventHelp, "type", "BlockStored");
    this.removed = Meters.counter(registry, EVENTS, eventHelp, "type", "BlockRemoved");
    this.cleared = Meters.counter(registry, EVENTS, eventHelp, "type", "AllBlocksCleared");
    this.otherEvents = Meters.counter(registry, EVENTS, eventHelp, "type", "other");
    this.unknownRemovals =
        Meters.counter(
            registry,
            UNKNOWN_REMOVALS,
            "Block removals of a hash (in its medium and group) the index does not hold; nothing"
                + " is emitted for them.");
    String tombstoneHelp =
        "Block index tombstones emitted, by cause (removed: last copy removed; cleared:"
            + " AllBlocksCleared, gap or restart of the source, or its expiry).";
    this.tombstonesRemoved =
        Meters.counter(registry, TOMBSTONES, tombstoneHelp, "cause", "removed");
    this.tombstonesCleared =
        Meters.counter(registry, TOMBSTONES, tombstoneHelp, "cause", "cleared");
    this.entries =
        Meters.counter(registry, ENTRIES, "Block index entries emitted (new or changed).");
    this.stats = Meters.counter(registry, STATS, "Source statistics records emitted.");
    this.sourcesExpired =
        Meters.counter(
            registry,
            SOURCES_EXPIRED,
            "KV sources expired: silent for longer than PREFIXLOG_KV_SOURCE_EXPIRY, their blocks"
                + " and statistics deleted.");
    this.eventAge =
        Meters.latency(
            registry,
            "prefixlog_kv_event_age",
            "Age of an engine batch when the block index applies it: now minus the engine's batch"
                + " time (engine_ts; the bridge's ts when the engine gave none).",
            true,
            Meters.millis(
                10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000));
  }

  /** Times a batch's age at indexing; {@code engineTs} in Unix seconds, {@code tsMs} in millis. */
  void batchAge(Double engineTs, Long tsMs) {
    long at = engineTs != null ? Math.round(engineTs * 1000) : tsMs != null ? tsMs : -1;
    if (at >= 0) {
      eventAge.record(Math.max(0, System.currentTimeMillis() - at), TimeUnit.MILLISECONDS);
    }
  }

  MeterRegistry registry() {
    return registry;
  }

  /** Counts a KV erase order obeyed for one source, by outcome ({@code erased}, {@code absent}). */
  void erasure(String outcome) {
    Meters.counter(
            registry,
            "prefixlog_kv_erasures_total",
            "KV erase orders obeyed, one per source, by outcome.",
            "outcome",
            outcome)
        .increment();
  }
}
