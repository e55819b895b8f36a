package io.prefixlog.streams.lookup;

import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Writes the chunk-hash lookup record of every request that became a turn: render the body, hash
 * its full chunks ({@link ChunkLookups}), forward the record under the turn's key.
 *
 * <p>A metadata-only request (capture sampling) arrives keyed {@code session_key/ts/request_id}
 * with the chunk hashes its bridge computed: its record is built from those, marked {@code
 * body_omitted}, unless they were hashed with another chunk size (counted, not written).
 *
 * <p>It is a child of the session-delta processor, which has already validated and deduplicated the
 * request: a duplicate delivery gets no second lookup, a rejected input none at all (its dead
 * letter is written once, by the parent), and the key {@code session_key/chain/seq} is unique
 * forever, so a client that reuses another's {@code X-Request-Id} cannot replace its lookup under
 * compaction (as the earlier key, {@code request_id}, allowed). Stateless: a replay after a crash
 * writes the same record again under the same key.
 */
final class ChunkLookupProcessor
    implements Processor<String, ValidatedRequest, String, ChunkLookupRecord> {
  private final ChunkLookups lookups;
  private final ChunkLookupMetrics metrics;
  private ProcessorContext<String, ChunkLookupRecord> context;

  ChunkLookupProcessor(ChunkLookupSupplier.Wiring wiring) {
    this.lookups = new ChunkLookups(wiring.chunkSizeBytes());
    this.metrics = wiring.metrics();
  }

  @Override
  public void init(ProcessorContext<String, ChunkLookupRecord> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, ValidatedRequest> record) {
    if (record.value() == null) {
      // An erased turn: its lookup goes too (a tombstone under the same key).
      context.forward(new Record<>(record.key(), null, record.timestamp()));
      return;
    }
    ChunkLookupRecord lookup;
    if (record.value().metadataOnly()) {
      // Sampled out: the bridge hashed the body it saw, with the same renderer and hasher.
      lookup = ChunkLookups.ofChunks(record.value().event());
      if (lookup.chunkSize() != lookups.chunkSize()) {
        // Hashes of another chunk size never match this app's: a record of them would read as
        // misses in every analysis. PREFIXLOG_CHUNK_SIZE_BYTES differs between bridge and app.
        metrics.chunkSizeMismatch();
        return;
      }
    } else {
      lookup = lookups.of(record.value());
    }
    context.forward(new Record<>(record.key(), lookup, record.timestamp()));
    metrics.emitted(lookup);
  }
}
