package io.prefixlog.streams.lookup;

import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.streams.StreamAppConfig;
import java.util.Objects;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

/** Supplies {@link ChunkLookupProcessor}s; they use no stores, and share one prints cache. */
final class ChunkLookupSupplier
    implements ProcessorSupplier<String, ValidatedRequest, String, ChunkLookupRecord> {
  private final Wiring wiring;

  ChunkLookupSupplier(StreamAppConfig config, ChunkLookupMetrics metrics, int chunkSizeBytes) {
    this.wiring =
        new Wiring(
            config, metrics, chunkSizeBytes, new ChunkPrintsCache(config.lookupCacheBytes()));
  }

  @Override
  public Processor<String, ValidatedRequest, String, ChunkLookupRecord> get() {
    return new ChunkLookupProcessor(wiring);
  }

  /**
   * @param prints the chains' newest prints, one cache for every task of the process
   */
  record Wiring(
      StreamAppConfig config,
      ChunkLookupMetrics metrics,
      int chunkSizeBytes,
      ChunkPrintsCache prints) {
    Wiring {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(metrics, "metrics");
      Objects.requireNonNull(prints, "prints");
      if (chunkSizeBytes < 1) {
        throw new IllegalArgumentException("chunkSizeBytes must be >= 1, got " + chunkSizeBytes);
      }
    }
  }
}
