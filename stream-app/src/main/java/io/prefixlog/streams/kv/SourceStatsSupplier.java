package io.prefixlog.streams.kv;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

/** Supplies {@link SourceStatsProcessor}s and declares their store, {@value #STORE}. */
final class SourceStatsSupplier {
  /** source id → its running statistics; a changelog topic name. */
  static final String STORE = "kv-source-stats";

  private SourceStatsSupplier() {}

  /** The {@link SourceStatsProcessor}s of {@code wiring}, with the store's changelog settings. */
  static ProcessorSupplier<String, BatchSummary, Object, Object> of(
      Wiring wiring, Map<String, String> changelog) {
    return KvStores.supplier(STORE, changelog, () -> new SourceStatsProcessor(wiring));
  }

  /**
   * @param interval the most often a source's record is emitted when nothing urgent happened
   * @param statsSink the sink node of {@code kv.source-stats}
   * @param erasureSink the sink node of the erasure acknowledgements
   */
  record Wiring(KvIndexMetrics metrics, Duration interval, String statsSink, String erasureSink) {
    Wiring {
      Objects.requireNonNull(metrics, "metrics");
      Objects.requireNonNull(interval, "interval");
      Objects.requireNonNull(statsSink, "statsSink");
      Objects.requireNonNull(erasureSink, "erasureSink");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be above zero: " + interval);
      }
    }
  }
}
