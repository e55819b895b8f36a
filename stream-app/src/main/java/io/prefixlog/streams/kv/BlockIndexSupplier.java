package io.prefixlog.streams.kv;

import io.prefixlog.streams.StreamAppMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

/** Supplies {@link BlockIndexProcessor}s and declares their store, {@value #STORE}. */
final class BlockIndexSupplier {
  /**
   * {@code source/hash} (the block-index record key) → the block's state; a changelog topic name,
   * so renaming it is a breaking change.
   */
  static final String STORE = "kv-block-index";

  private BlockIndexSupplier() {}

  /** The {@link BlockIndexProcessor}s of {@code wiring}, with the store's changelog settings. */
  static ProcessorSupplier<String, byte[], Object, Object> of(
      Wiring wiring, Map<String, String> changelog) {
    return KvStores.supplier(STORE, changelog, () -> new BlockIndexProcessor(wiring));
  }

  /**
   * @param app the app's metrics (bulk work)
   * @param indexSink the sink node of {@code kv.block-index}
   * @param statsProcessor the source-statistics processor node
   * @param deadLetterSink the sink node of the dead letters
   * @param bulkBatch keys per step of a clear ({@code PREFIXLOG_BULK_BATCH})
   * @param bulkInterval how often a step is taken ({@code PREFIXLOG_BULK_INTERVAL})
   * @param sourceExpiry the silence after which a source is expired ({@code
   *     PREFIXLOG_KV_SOURCE_EXPIRY}); zero: never
   */
  record Wiring(
      KvIndexMetrics metrics,
      StreamAppMetrics app,
      String indexSink,
      String statsProcessor,
      String deadLetterSink,
      int bulkBatch,
      Duration bulkInterval,
      Duration sourceExpiry) {
    Wiring {
      Objects.requireNonNull(sourceExpiry, "sourceExpiry");
      if (sourceExpiry.isNegative()) {
        throw new IllegalArgumentException("sourceExpiry must not be negative: " + sourceExpiry);
      }
      Objects.requireNonNull(metrics, "metrics");
      Objects.requireNonNull(app, "app");
      Objects.requireNonNull(bulkInterval, "bulkInterval");
      Objects.requireNonNull(indexSink, "indexSink");
      Objects.requireNonNull(statsProcessor, "statsProcessor");
      Objects.requireNonNull(deadLetterSink, "deadLetterSink");
    }
  }
}
