package io.prefixlog.bridge.kv;

import io.prefixlog.core.metrics.MetricsRegistry;
import io.prefixlog.schemas.kv.KvEvent;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * The subscriber's metrics, shared by every source. Counters are totals over all sources; event
 * types other than vLLM's three are counted as {@code other} (a peer cannot grow the label set).
 */
final class KvBridgeMetrics {
  static final String MESSAGES = "prefixlog_kv_messages_total";
  static final String BATCHES = "prefixlog_kv_batches_total";
  static final String EVENTS = "prefixlog_kv_events_total";
  static final String EMPTY_BATCHES = "prefixlog_kv_empty_batches_total";
  static final String DUPLICATES = "prefixlog_kv_duplicates_total";
  static final String GAPS = "prefixlog_kv_gaps_total";
  static final String MISSING = "prefixlog_kv_missing_batches_total";
  static final String RESTARTS = "prefixlog_kv_restarts_total";
  static final String REPLAYS = "prefixlog_kv_replays_total";
  static final String REPLAYED = "prefixlog_kv_replayed_batches_total";
  static final String DEAD_LETTERS = "prefixlog_dead_letters_total";
  static final String QUEUE_DROPS = "prefixlog_kv_queue_drops_total";
  static final String QUEUE_DEPTH = "prefixlog_kv_queue_depth";
  static final String QUEUE_BYTES = "prefixlog_kv_queue_bytes";
  static final String PUBLISHED = "prefixlog_kv_records_published_total";
  static final String PUBLISH_FAILURES = "prefixlog_kv_publish_failures_total";
  static final String RECONNECTS = "prefixlog_kv_reconnects_total";

  private final MetricsRegistry registry;
  final LongAdder messages;
  final LongAdder batches;
  final LongAdder emptyBatches;
  final LongAdder duplicates;
  final LongAdder gaps;
  final LongAdder missing;
  final LongAdder restarts;
  final LongAdder replayed;
  final LongAdder published;
  final LongAdder publishFailures;
  final LongAdder reconnects;

  KvBridgeMetrics(MetricsRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    messages = registry.counter(MESSAGES, "ZMQ messages received from the engines (live).");
    batches = registry.counter(BATCHES, "Engine batches handed to the producer.");
    emptyBatches =
        registry.counter(EMPTY_BATCHES, "Engine batches without events (not published).");
    duplicates =
        registry.counter(
            DUPLICATES, "Batches dropped because their sequence number was already handled.");
    gaps = registry.counter(GAPS, "Gap markers: sequence numbers lost and not recovered.");
    missing = registry.counter(MISSING, "Sequence numbers covered by gap markers.");
    restarts = registry.counter(RESTARTS, "Restart markers: the sequence went backwards.");
    replayed = registry.counter(REPLAYED, "Batches received through replay.");
    published =
        registry.counter(PUBLISHED, "Records acknowledged by Kafka (batches, markers, letters).");
    publishFailures =
        registry.counter(PUBLISH_FAILURES, "Records Kafka did not accept (reported as gaps).");
    reconnects =
        registry.counter(RECONNECTS, "Subscriber sockets re-created after an error, with backoff.");
  }

  MetricsRegistry registry() {
    return registry;
  }

  void event(String type) {
    String label =
        switch (type) {
          case KvEvent.BLOCK_STORED, KvEvent.BLOCK_REMOVED, KvEvent.ALL_BLOCKS_CLEARED -> type;
          default -> "other";
        };
    registry.counter(EVENTS, "Engine events published, by type.", "type", label).increment();
  }

  void replay(String outcome) {
    registry
        .counter(REPLAYS, "Replays requested from an engine, by outcome.", "outcome", outcome)
        .increment();
  }

  void deadLetter(String reason) {
    registry
        .counter(
            DEAD_LETTERS, "Inputs rejected to the dead-letter topic, by reason.", "reason", reason)
        .increment();
  }

  void queueDrop(String kind) {
    registry
        .counter(
            QUEUE_DROPS,
            "Records dropped because the hand-off queue was full, by kind.",
            "kind",
            kind)
        .increment();
  }

  void queueGauges(DoubleSupplier depth, DoubleSupplier bytes) {
    registry.gauge(QUEUE_DEPTH, "Records waiting in the hand-off queue.", depth);
    registry.gauge(QUEUE_BYTES, "Bytes waiting in the hand-off queue.", bytes);
  }

  /** A counter's value by name and label ({@code "reason=\"bad_event\""}), for tests. */
  long value(String name, String label) {
    return registry.value(name, label);
  }
}
