package io.prefixlog.streams.lookup;

import io.prefixlog.core.chunk.RenderedPrompt;
import io.prefixlog.core.metrics.MetricsRegistry;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The chunk-lookup counters, registered up front so that they read 0 before the first request. */
final class ChunkLookupMetrics {
  static final String LOOKUPS = "prefixlog_chunk_lookups_total";
  static final String CHUNKS = "prefixlog_chunks_hashed_total";
  static final String BYTES = "prefixlog_chunked_bytes_total";

  private final Map<RenderedPrompt.Kind, LongAdder> lookups =
      new EnumMap<>(RenderedPrompt.Kind.class);
  private final LongAdder chunks;
  private final LongAdder bytes;

  ChunkLookupMetrics(MetricsRegistry registry) {
    for (RenderedPrompt.Kind kind : RenderedPrompt.Kind.values()) {
      lookups.put(
          kind,
          registry.counter(
              LOOKUPS,
              "Chunk lookup records emitted, by what was chunked.",
              "chunked",
              kind.wireName()));
    }
    this.chunks = registry.counter(CHUNKS, "Full chunks hashed into lookup records.");
    this.bytes =
        registry.counter(BYTES, "Bytes of rendered prompts chunked (the records' seq_len).");
  }

  /** Counts one emitted record. */
  void emitted(ChunkLookupRecord record) {
    for (RenderedPrompt.Kind kind : RenderedPrompt.Kind.values()) {
      if (kind.wireName().equals(record.chunked())) {
        lookups.get(kind).increment();
      }
    }
    chunks.add(record.chunkHashes().size());
    bytes.add(record.seqLen());
  }
}
