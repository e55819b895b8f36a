package io.prefixlog.streams.lookup;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.core.chunk.RenderedPrompt;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.util.EnumMap;
import java.util.Map;

/** The chunk-lookup counters, registered up front so that they read 0 before the first request. */
final class ChunkLookupMetrics {
  static final String LOOKUPS = "prefixlog_chunk_lookups_total";
  static final String CHUNKS = "prefixlog_chunks_hashed_total";
  static final String REUSED = "prefixlog_chunk_hashes_reused_total";
  static final String BYTES = "prefixlog_chunked_bytes_total";

  private final Map<RenderedPrompt.Kind, Counter> lookups =
      new EnumMap<>(RenderedPrompt.Kind.class);
  private final Counter chunks;
  private final Counter reused;
  private final Counter bytes;
  private final Counter chunkSizeMismatches;

  ChunkLookupMetrics(MeterRegistry registry) {
    for (RenderedPrompt.Kind kind : RenderedPrompt.Kind.values()) {
      lookups.put(
          kind,
          Meters.counter(
              registry,
              LOOKUPS,
              "Chunk lookup records emitted, by what was chunked.",
              "chunked",
              kind.wireName()));
    }
    this.chunks =
        Meters.counter(
            registry, CHUNKS, "Full chunks hashed for lookup records (SHA-256 chained).");
    this.reused =
        Meters.counter(
            registry,
            REUSED,
            "Hashes of full chunks taken from the previous turn of the chain, not hashed again.");
    this.bytes =
        Meters.counter(
            registry, BYTES, "Bytes of rendered prompts chunked (the records' seq_len).");
    this.chunkSizeMismatches =
        Meters.counter(
            registry,
            "prefixlog_chunk_lookups_skipped_total",
            "Hash-only lookups not written: the bridge hashed with another chunk size"
                + " (PREFIXLOG_CHUNK_SIZE_BYTES differs between bridge and stream app).",
            "reason",
            "chunk_size_mismatch");
  }

  void chunkSizeMismatch() {
    chunkSizeMismatches.increment();
  }

  /**
   * Counts one emitted record.
   *
   * @param hashed full chunks whose hashes were computed for it
   * @param reusedHashes full chunks whose hashes were the previous turn's
   */
  void emitted(ChunkLookupRecord record, int hashed, int reusedHashes) {
    for (RenderedPrompt.Kind kind : RenderedPrompt.Kind.values()) {
      if (kind.wireName().equals(record.chunked())) {
        lookups.get(kind).increment();
      }
    }
    chunks.increment(hashed);
    reused.increment(reusedHashes);
    bytes.increment(record.seqLen());
  }
}
