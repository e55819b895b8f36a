package io.prefixlog.streams.lookup;

import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.chunk.ChunkPrints;
import io.prefixlog.core.rebuild.TurnKey;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.streams.upgrade.WireFormat;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Writes the chunk-hash lookup record of every request that became a turn: render the body (from
 * where it stops repeating the previous turn's body, when that turn's rendering is at hand), hash
 * its full chunks ({@link ChunkLookups}), forward the record under the turn's key.
 *
 * <p>Version 2 records ({@code PREFIXLOG_UPGRADE_FROM} unset or past generation 1) list only the
 * hashes after those the turn shares with the previous turn of its chain, and the chunks shared are
 * not hashed again: the {@link ChunkPrintsCache} holds each chain's newest turn's hashes and chunk
 * fingerprints. A record is whole at the first turn of a chain, every {@value #WHOLE_EVERY} turns
 * (so that a reader that starts inside a chain resolves it soon), and when the previous turn's
 * prints are not at hand.
 *
 * <p>A metadata-only request (capture sampling) arrives keyed {@code session_key/ts/request_id}
 * with the chunk hashes its bridge computed: its record is built from those, whole, marked {@code
 * body_omitted}, unless they were hashed with another chunk size (counted, not written).
 *
 * <p>It is a child of the session-delta processor, which has already validated and deduplicated the
 * request: a duplicate delivery gets no second lookup, a rejected input none at all (its dead
 * letter is written once, by the parent), and the key {@code session_key/chain/seq} is unique
 * forever, so a client that reuses another's {@code X-Request-Id} cannot replace its lookup under
 * compaction. A replay after a crash writes a record of the same turn under the same key, which
 * resolves to the same hashes.
 */
final class ChunkLookupProcessor
    implements Processor<String, ValidatedRequest, String, ChunkLookupRecord> {
  /** A chain's records are whole at seqs 1, 1 + WHOLE_EVERY, …: readers resynchronise there. */
  static final int WHOLE_EVERY = 64;

  private final ChunkLookups lookups;
  private final ChunkLookupMetrics metrics;
  private final ChunkPrintsCache prints;
  private final boolean v2;
  private ProcessorContext<String, ChunkLookupRecord> context;

  ChunkLookupProcessor(ChunkLookupSupplier.Wiring wiring) {
    this.lookups = new ChunkLookups(wiring.chunkSizeBytes());
    this.metrics = wiring.metrics();
    this.prints = wiring.prints();
    this.v2 = wiring.config().formatsToWrite().version(WireFormat.CHUNK_LOOKUP) >= 2;
  }

  @Override
  public void init(ProcessorContext<String, ChunkLookupRecord> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, ValidatedRequest> record) {
    if (record.value() == null) {
      // An erased turn: its lookup goes too (a tombstone under the same key), and so do the prints
      // its chain kept.
      TurnKey.parse(record.key()).ifPresent(turn -> prints.remove(turn.chainKey()));
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
      metrics.emitted(lookup, lookup.chunkHashes().size(), 0);
      if (v2) {
        lookup = ChunkLookups.asWhole(lookup);
      }
    } else if (v2) {
      lookup = turnLookup(record.key(), record.value());
    } else {
      lookup = lookups.of(record.value());
      metrics.emitted(lookup, lookup.chunkHashes().size(), 0);
    }
    context.forward(new Record<>(record.key(), lookup, record.timestamp()));
  }

  private ChunkLookupRecord turnLookup(String key, ValidatedRequest request) {
    TurnKey turn =
        TurnKey.parse(key).orElseThrow(() -> new IllegalStateException("not a turn key: " + key));
    String chain = turn.chainKey();
    ChunkPrints previous = prints.previous(chain, turn.seq());
    boolean whole = (turn.seq() - 1) % WHOLE_EVERY == 0;
    ChunkLookups.Lookup lookup =
        lookups.of(request, previous, prints.previousRendering(chain, turn.seq()), whole);
    prints.put(chain, turn.seq(), lookup.prints(), lookup.resume());
    int chunks = lookup.prints().hashes().length;
    metrics.emitted(lookup.record(), chunks - lookup.sharedChunks(), lookup.sharedChunks());
    return lookup.record();
  }
}
