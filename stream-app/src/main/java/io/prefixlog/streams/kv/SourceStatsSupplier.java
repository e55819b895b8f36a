package io.prefixlog.streams.kv;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/** Supplies {@link SourceStatsProcessor}s and declares their store, {@value #STORE}. */
final class SourceStatsSupplier implements ProcessorSupplier<String, BatchSummary, Object, Object> {
  /** source id → its running statistics; a changelog topic name. */
  static final String STORE = "kv-source-stats";

  private final Wiring wiring;
  private final Map<String, String> changelog;

  /**
   * @param changelog the store's changelog topic settings ({@code max.compaction.lag.ms}: an erased
   *     session id leaves the broker within that long)
   */
  SourceStatsSupplier(Wiring wiring, Map<String, String> changelog) {
    this.changelog = Map.copyOf(changelog);
    this.wiring = wiring;
  }

  @Override
  public Processor<String, BatchSummary, Object, Object> get() {
    return new SourceStatsProcessor(wiring);
  }

  @Override
  public Set<StoreBuilder<?>> stores() {
    return KvStores.logged(STORE, changelog);
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
