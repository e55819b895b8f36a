package io.prefixlog.streams.lookup;

import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.streams.StreamAppConfig;
import java.util.Objects;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

/** Supplies {@link ChunkLookupProcessor}s; they use no stores. */
final class ChunkLookupSupplier
    implements ProcessorSupplier<String, ValidatedRequest, String, ChunkLookupRecord> {
  private final Wiring wiring;

  ChunkLookupSupplier(StreamAppConfig config, ChunkLookupMetrics metrics, int chunkSizeBytes) {
    this.wiring = new Wiring(config, metrics, chunkSizeBytes);
  }

  @Override
  public Processor<String, ValidatedRequest, String, ChunkLookupRecord> get() {
    return new ChunkLookupProcessor(wiring);
  }

  record Wiring(StreamAppConfig config, ChunkLookupMetrics metrics, int chunkSizeBytes) {
    Wiring {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(metrics, "metrics");
      if (chunkSizeBytes < 1) {
        throw new IllegalArgumentException("chunkSizeBytes must be >= 1, got " + chunkSizeBytes);
      }
    }
  }
}
