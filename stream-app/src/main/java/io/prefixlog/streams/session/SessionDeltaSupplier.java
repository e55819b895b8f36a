package io.prefixlog.streams.session;

import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/** Supplies {@link SessionDeltaProcessor}s and declares the stores they use. */
public final class SessionDeltaSupplier
    implements ProcessorSupplier<String, byte[], Object, Object> {
  private final Wiring wiring;

  /**
   * @param deltaSink the sink node the delta records go to
   * @param deadLetterSink the sink node the dead letters go to
   * @param erasureSink the sink node the erasure acknowledgements go to
   * @param metadataSink the sink node every request's metadata record goes to
   * @param lookupChild the processor each stored turn's {@code ValidatedRequest} goes to, keyed by
   *     its turn key, or null when there is none
   */
  public SessionDeltaSupplier(
      StreamAppConfig config,
      StreamAppMetrics metrics,
      String deltaSink,
      String deadLetterSink,
      String erasureSink,
      String metadataSink,
      String lookupChild) {
    this.wiring =
        new Wiring(
            config,
            metrics,
            deltaSink,
            deadLetterSink,
            erasureSink,
            metadataSink,
            lookupChild,
            new BaseCache(config.baseCacheBytes()));
  }

  @Override
  public Processor<String, byte[], Object, Object> get() {
    return new SessionDeltaProcessor(wiring);
  }

  @Override
  public Set<StoreBuilder<?>> stores() {
    return SessionStores.builders(
        wiring.config().maxRecordBytes(),
        wiring.config().dedupWindow(),
        wiring.config().maxCompactionLag());
  }

  record Wiring(
      StreamAppConfig config,
      StreamAppMetrics metrics,
      String deltaSink,
      String deadLetterSink,
      String erasureSink,
      String metadataSink,
      String lookupChild,
      BaseCache baseCache) {
    Wiring {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(metrics, "metrics");
      Objects.requireNonNull(deltaSink, "deltaSink");
      Objects.requireNonNull(deadLetterSink, "deadLetterSink");
      Objects.requireNonNull(erasureSink, "erasureSink");
      Objects.requireNonNull(metadataSink, "metadataSink");
      Objects.requireNonNull(baseCache, "baseCache");
    }
  }
}
