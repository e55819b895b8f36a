package io.prefixlog.bridge.kv;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.kv.KvEvent;
import java.util.Objects;
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
  static final String RECEIVE_DROPS = "prefixlog_kv_receive_drops_total";
  static final String RECEIVE_BYTES = "prefixlog_kv_receive_bytes";
  static final String QUEUE_DEPTH = "prefixlog_kv_queue_depth";
  static final String QUEUE_BYTES = "prefixlog_kv_queue_bytes";
  static final String PUBLISHED = "prefixlog_kv_records_published_total";
  static final String PUBLISH_FAILURES = "prefixlog_kv_publish_failures_total";
  static final String RECONNECTS = "prefixlog_kv_reconnects_total";

  private final MeterRegistry registry;
  final Counter messages;
  final Counter batches;
  final Counter emptyBatches;
  final Counter duplicates;
  final Counter gaps;
  final Counter missing;
  final Counter restarts;
  final Counter replayed;
  final Counter published;
  final Counter publishFailures;
  final Counter reconnects;
  final Counter receiveDrops;

  KvBridgeMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    messages = Meters.counter(registry, MESSAGES, "ZMQ messages received from the engines (live).");
    batches = Meters.counter(registry, BATCHES, "Engine batches handed to the producer.");
    emptyBatches =
        Meters.counter(registry, EMPTY_BATCHES, "Engine batches without events (not published).");
    duplicates =
        Meters.counter(
            registry,
            DUPLICATES,
            "Batches dropped because their sequence number was already handled.");
    gaps = Meters.counter(registry, GAPS, "Gap markers: sequence numbers lost and not recovered.");
    missing = Meters.counter(registry, MISSING, "Sequence numbers covered by gap markers.");
    restarts = Meters.counter(registry, RESTARTS, "Restart markers: the sequence went backwards.");
    replayed = Meters.counter(registry, REPLAYED, "Batches received through replay.");
    published =
        Meters.counter(
            registry, PUBLISHED, "Records acknowledged by Kafka (batches, markers, letters).");
    publishFailures =
        Meters.counter(
            registry, PUBLISH_FAILURES, "Records Kafka did not accept (reported as gaps).");
    reconnects =
        Meters.counter(
            registry, RECONNECTS, "Subscriber sockets re-created after an error, with backoff.");
    receiveDrops =
        Meters.counter(
            registry,
            RECEIVE_DROPS,
            "Messages dropped on receipt: their source's share of the receive memory was full.");
  }

  MeterRegistry registry() {
    return registry;
  }

  void event(String type) {
    String label =
        switch (type) {
          case KvEvent.BLOCK_STORED, KvEvent.BLOCK_REMOVED, KvEvent.ALL_BLOCKS_CLEARED -> type;
          default -> "other";
        };
    Meters.counter(registry, EVENTS, "Engine events published, by type.", "type", label)
        .increment();
  }

  void replay(String outcome) {
    Meters.counter(
            registry, REPLAYS, "Replays requested from an engine, by outcome.", "outcome", outcome)
        .increment();
  }

  void deadLetter(String reason) {
    Meters.counter(
            registry,
            DEAD_LETTERS,
            "Inputs rejected to the dead-letter topic, by reason.",
            "reason",
            reason)
        .increment();
  }

  void queueDrop(String kind) {
    Meters.counter(
            registry,
            QUEUE_DROPS,
            "Records dropped because the hand-off queue was full, by kind.",
            "kind",
            kind)
        .increment();
  }

  void queueGauges(DoubleSupplier depth, DoubleSupplier bytes) {
    Meters.gauge(registry, QUEUE_DEPTH, "Records waiting in the hand-off queue.", depth);
    Meters.gauge(registry, QUEUE_BYTES, "Bytes waiting in the hand-off queue.", bytes);
  }

  void receiveGauge(DoubleSupplier bytes) {
    Meters.gauge(
        registry, RECEIVE_BYTES, "Bytes of received messages not yet handled, all sources.", bytes);
  }
}
