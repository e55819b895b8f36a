package io.prefixlog.streams.kv;

import io.prefixlog.core.control.EraseOrders;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.streams.errors.DeadLetters;
import io.prefixlog.streams.errors.PartialWriteException;
import io.prefixlog.streams.errors.SourcePosition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the block index of every source and publishes its changes to the compacted {@code
 * kv.block-index}: an entry (key {@code source/hash}) when a block appears or changes, a tombstone
 * when its last copy is removed, and a tombstone for every block of a source on AllBlocksCleared
 * and on the bridge's {@code gap} and {@code restart} markers (the engine's cache can no longer be
 * known, so the index is rebuilt from what follows instead of being left stale).
 *
 * <p>Per record: check it whole (a bad record is a counted dead letter and changes nothing), apply
 * its events in order to the blocks it touches, then write each touched block once and emit its
 * final state once: a block stored and removed in the same batch emits nothing, a block stored
 * twice emits one entry with two copies. Copies are counted, because vLLM does not deduplicate
 * identical blocks (see {@link BlockState}). A removal of a block the index does not hold is
 * counted ({@value KvIndexMetrics#UNKNOWN_REMOVALS}) and emits nothing: after a gap or a restart,
 * removals of blocks stored before it are expected. Unknown event types are counted and skipped.
 *
 * <p>A source silent for longer than {@code PREFIXLOG_KV_SOURCE_EXPIRY} ({@link SourceSilence}), an
 * engine that was retired, is expired by the bulk punctuation: cleared as above, and its statistics
 * deleted.
 *
 * <p>Then a {@link BatchSummary} goes to the source-statistics processor. The store's key is the
 * record key, {@code source/hash}: a prefix scan of {@code source/} finds the blocks of a source
 * (keys whose remainder is not pure hex belong to another source whose id extends this one).
 */
final class BlockIndexProcessor implements Processor<String, byte[], Object, Object> {
  private static final StringSerializer KEYS = new StringSerializer();
  private static final Logger LOGGER = LoggerFactory.getLogger(BlockIndexProcessor.class);
  private static final String KV_CLEAR = "kv_clear";

  private final BlockIndexSupplier.Wiring wiring;
  private final KvIndexMetrics metrics;
  private final DeadLetters deadLetters;

  private ProcessorContext<Object, Object> context;
  private KeyValueStore<String, byte[]> store;
  private SourceClearing clearing;
  private SourceSilence silence;

  BlockIndexProcessor(BlockIndexSupplier.Wiring wiring) {
    this.wiring = wiring;
    this.metrics = wiring.metrics();
    this.deadLetters = new DeadLetters(metrics.registry(), wiring.deadLetterSink());
  }

  @Override
  public void init(ProcessorContext<Object, Object> context) {
    this.context = context;
    this.store = context.getStateStore(BlockIndexSupplier.STORE);
    this.clearing = new SourceClearing(store);
    this.silence = new SourceSilence(store, wiring.sourceExpiry());
    wiring.app().bulkPending(KV_CLEAR).add(clearing.jobs().size());
    context.schedule(wiring.bulkInterval(), PunctuationType.WALL_CLOCK_TIME, wallClock -> bulk());
  }

  @Override
  public void close() {
    if (clearing != null) {
      wiring.app().bulkPending(KV_CLEAR).add(-clearing.jobs().size());
    }
  }

  /**
   * The expiry of every source silent for too long, then a step of every clear under way, {@code
   * PREFIXLOG_BULK_BATCH} keys at most in all.
   */
  private void bulk() {
    try {
      for (SourceSilence.Silent silent : silence.due(context.currentStreamTimeMs())) {
        expire(silent, context.currentStreamTimeMs());
      }
      int budget = wiring.bulkBatch();
      for (ClearJob job : clearing.jobs()) {
        if (budget <= 0) {
          break;
        }
        budget -= clearStep(job, budget);
      }
      if (silence.discovering()) {
        silence.discover(budget, context.currentStreamTimeMs());
      }
    } catch (StreamsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new PartialWriteException("a step of a KV source clear or expiry", e);
    }
  }

  /**
   * A source silent for longer than {@code PREFIXLOG_KV_SOURCE_EXPIRY} is gone as if cleared: a
   * clear of its blocks begins (tombstoned in the bulk steps, at this stream time), and its
   * statistics are deleted. If it sends again, it starts afresh, as after a clear.
   */
  private void expire(SourceSilence.Silent silent, long now) {
    String source = silent.source();
    ClearJob pending = clearing.job(source);
    ClearJob job = clearing.clear(pending, source, now);
    clearing.begin(job);
    clearing.save(job);
    if (pending == null) {
      wiring.app().bulkPending(KV_CLEAR).increment();
    }
    silence.forget(source);
    context.forward(
        new Record<Object, Object>(source, BatchSummary.expired(source, now), now),
        wiring.statsProcessor());
    metrics.sourcesExpired.increment();
    LOGGER
        .atInfo()
        .setMessage("KV source expired: silent too long, its blocks and statistics are deleted")
        .addKeyValue("source", source)
        .addKeyValue("lastSeenMs", silent.lastSeenMs())
        .addKeyValue("silentMs", now - silent.lastSeenMs())
        .addKeyValue("expiryMs", wiring.sourceExpiry().toMillis())
        .log();
  }

  /**
   * A step of a clear, saved with its outputs; the job leaves the store when done.
   *
   * @return the keys done
   */
  private int clearStep(ClearJob job, int budget) {
    long before = job.blocksDeleted;
    int done =
        clearing.step(
            job,
            budget,
            (key, timestamp) -> {
              context.forward(new Record<Object, Object>(key, null, timestamp), wiring.indexSink());
              metrics.tombstonesCleared.increment();
            });
    wiring.app().bulkKeys(KV_CLEAR, job.blocksDeleted - before);
    if (job.finished) {
      clearing.finish(job);
      wiring.app().bulkPending(KV_CLEAR).decrement();
      LOGGER
          .atInfo()
          .setMessage("KV source cleared: its blocks are deleted")
          .addKeyValue("source", job.source)
          .addKeyValue("epoch", job.epoch)
          .addKeyValue("blocksDeleted", job.blocksDeleted)
          .log();
    } else {
      clearing.save(job);
    }
    return done;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    // A null key crossed the repartition step as "" (see SourcePosition.NULL_KEY_HEADER).
    String key = SourcePosition.hadNullKey(record) ? null : record.key();
    if (ControlHeaders.isErase(record.headers())) {
      obeyErase(record, key);
      return;
    }
    KvBatchCheck.Outcome outcome = KvBatchCheck.check(key, record.value());
    if (outcome.rejected() != null) {
      byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
      deadLetters.send(context, record, keyBytes, outcome.rejected());
      return;
    }
    KvEventBatch batch = outcome.batch();
    ClearJob pending = clearing.job(batch.source());
    Batch applied = new Batch(batch, pending);
    if (batch.marker() != null) {
      (batch.marker().equals(KvEventBatch.MARKER_GAP) ? metrics.gapMarkers : metrics.restartMarkers)
          .increment();
      applied.clearSource();
    } else {
      metrics.batches.increment();
      metrics.batchAge(batch.engineTs(), batch.ts());
      for (KvEvent event : batch.events()) {
        switch (event.type()) {
          case KvEvent.BLOCK_STORED -> applied.stored(event);
          case KvEvent.BLOCK_REMOVED -> applied.removed(event);
          case KvEvent.ALL_BLOCKS_CLEARED -> {
            metrics.cleared.increment();
            applied.clears++;
            applied.clearSource();
          }
          default -> metrics.otherEvents.increment();
        }
      }
    }
    try {
      applied.flush(record.timestamp());
      silence.seen(batch.source(), record.timestamp());
      if (applied.job != null && applied.job != pending) {
        // Cleared by this record: the first step now, the rest in the bulk punctuations.
        clearing.begin(applied.job);
        if (pending == null) {
          wiring.app().bulkPending(KV_CLEAR).increment();
        }
        clearStep(applied.job, wiring.bulkBatch());
        if (!applied.job.finished) {
          LOGGER
              .atInfo()
              .setMessage("KV source cleared: its blocks are deleted in steps")
              .addKeyValue("source", applied.job.source)
              .addKeyValue("epoch", applied.job.epoch)
              .addKeyValue("batch", wiring.bulkBatch())
              .log();
        }
      }
      context.forward(
          new Record<Object, Object>(batch.source(), applied.summary(), record.timestamp()),
          wiring.statsProcessor());
    } catch (StreamsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new PartialWriteException("KV batch of " + batch.source(), e);
    }
  }

  /**
   * An erase order for this source (keyed by it): every block whose engine-reported session id is
   * one of the order's keeps its place in the index with the id cleared, and the updated entry is
   * published, so that the compacted topic's latest value no longer names the session. The
   * statistics processor then drops the ids and acknowledges.
   */
  private void obeyErase(Record<String, byte[]> record, String key) {
    EraseOrders.Outcome outcome = EraseOrders.kv(key, record.value());
    if (outcome.rejected() != null) {
      byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
      deadLetters.send(context, record, keyBytes, outcome.rejected());
      return;
    }
    Set<String> digests = Set.copyOf(outcome.order().kvSessionIdSha256());
    Set<String> ids = new HashSet<>();
    String prefix = key + "/";
    ClearJob clear = clearing.job(key);
    List<KeyValue<String, BlockState>> scrubbed = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> blocks = store.prefixScan(prefix, KEYS)) {
      while (blocks.hasNext()) {
        KeyValue<String, byte[]> block = blocks.next();
        if (!KvBatchCheck.isHex(block.key.substring(prefix.length()))) {
          continue; // a block of another source whose id extends this one
        }
        if (clearing.stale(clear, block.key)) {
          continue; // cleared: the clear under way deletes it
        }
        BlockState state = BlockState.decode(block.value);
        if (state.sessionId != null && digests.contains(Sha256.hex(utf8(state.sessionId)))) {
          ids.add(state.sessionId);
          state.sessionId = null;
          scrubbed.add(KeyValue.pair(block.key, state));
        }
      }
    }
    try {
      for (KeyValue<String, BlockState> block : scrubbed) {
        store.put(block.key, block.value.encode());
        BlockIndexEntry entry = block.value.toEntry(key, block.key.substring(prefix.length()));
        context.forward(
            new Record<Object, Object>(block.key, entry, record.timestamp()), wiring.indexSink());
      }
      KvErasure erasure = new KvErasure(outcome.order().eraseId(), digests, scrubbed.size());
      context.forward(
          new Record<Object, Object>(
              key, BatchSummary.of(key, record.timestamp(), erasure), record.timestamp()),
          wiring.statsProcessor());
    } catch (StreamsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new PartialWriteException("KV erase order " + outcome.order().eraseId(), e);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A block touched by the batch: whether the store held it before, and its state now. */
  private static final class Touch {
    final boolean existed;
    BlockState current;
    boolean cleared;

    /** Whether it was loaded as a block stored after the clear under way (it has the mark). */
    boolean marked;

    Touch(boolean existed, BlockState current) {
      this.existed = existed;
      this.current = current;
    }
  }

  /** The application of one record. */
  private final class Batch {
    final KvEventBatch batch;
    final String source;
    final long ts;
    final Map<String, Touch> touched = new LinkedHashMap<>();

    /** The clear under way for the source: the one before the batch, or one the batch began. */
    ClearJob job;

    boolean residentReset;
    final Map<String, Long> storesBySession = new HashMap<>();
    long[] lifetimes = new long[0];
    int lifetimeCount;
    long stores;
    long removals;
    long clears;
    long residentBlocks;
    long residentTokens;

    Batch(KvEventBatch batch, ClearJob job) {
      this.batch = batch;
      this.job = job;
      this.source = batch.source();
      this.ts = batch.ts();
    }

    private Touch touch(String key) {
      Touch touch = touched.get(key);
      if (touch == null) {
        touch = load(key);
        touched.put(key, touch);
      }
      return touch;
    }

    /**
     * A block as the store holds it: absent (though maybe stored, then {@code existed}) when it is
     * from before a clear whose deletion has not reached it.
     */
    private Touch load(String key) {
      byte[] stored = store.get(key);
      if (stored == null) {
        return new Touch(false, null);
      }
      if (job != null && job.ahead(key)) {
        if (clearing.stale(job, key)) {
          Touch stale = new Touch(true, null);
          stale.cleared = true;
          return stale;
        }
        Touch marked = new Touch(true, BlockState.decode(stored));
        marked.marked = true;
        return marked;
      }
      return new Touch(true, BlockState.decode(stored));
    }

    void stored(KvEvent event) {
      metrics.stored.increment();
      List<String> hashes = event.blockHashes();
      Integer tokensPerBlock =
          event.tokenCount() == null || event.tokenCount() == 0
              ? null
              : event.tokenCount() / hashes.size();
      for (int i = 0; i < hashes.size(); i++) {
        Touch touch = touch(BlockIndexEntry.key(source, hashes.get(i)));
        long before = 0;
        if (touch.current == null) {
          touch.current = BlockState.firstStored(ts);
          residentBlocks++;
        } else {
          before = touch.current.tokens();
        }
        touch.current.store(
            event.medium(),
            event.groupIdx(),
            tokensPerBlock,
            event.blockSize(),
            i == 0 ? event.parentBlockHash() : hashes.get(i - 1),
            event.loraId(),
            event.loraName(),
            event.sessionId(),
            ts,
            batch.seq());
        residentTokens += touch.current.tokens() - before;
      }
      stores += hashes.size();
      if (event.sessionId() != null) {
        storesBySession.merge(event.sessionId(), (long) hashes.size(), Long::sum);
      }
    }

    void removed(KvEvent event) {
      metrics.removed.increment();
      for (String hash : event.blockHashes()) {
        removals++;
        String key = BlockIndexEntry.key(source, hash);
        Touch touch = touched.get(key);
        if (touch == null) {
          touch = load(key);
          if (touch.current == null) {
            metrics.unknownRemovals.increment();
            continue;
          }
        }
        BlockState state = touch.current;
        if (state == null || !state.remove(event.medium(), event.groupIdx(), batch.seq())) {
          metrics.unknownRemovals.increment(); // and the block, unchanged, is not re-emitted
          continue;
        }
        touched.putIfAbsent(key, touch);
        if (state.holders.isEmpty()) {
          residentBlocks--;
          residentTokens -= state.tokens();
          if (lifetimeCount == lifetimes.length) {
            lifetimes = Arrays.copyOf(lifetimes, Math.max(4, 2 * lifetimeCount));
          }
          lifetimes[lifetimeCount++] = Math.max(0, ts - state.firstStoredMs);
          touch.current = null;
          touch.cleared = false;
        }
      }
    }

    /**
     * Every block of the source is gone: those the batch touched now, those in the store by the
     * clear this starts ({@link SourceClearing}). Nothing is resident any more, whatever the
     * statistics counted: they start again from what follows.
     */
    void clearSource() {
      for (Touch touch : touched.values()) {
        if (touch.current != null) {
          touch.current = null;
          touch.cleared = true;
        }
        touch.marked = false; // a mark of the clear before, which the new one ignores
      }
      job = clearing.clear(job, source, ts);
      residentBlocks = 0;
      residentTokens = 0;
      residentReset = true;
    }

    /** Writes every touched block once and emits its entry, or its tombstone if it was held. */
    void flush(long timestamp) {
      String sink = wiring.indexSink();
      for (Map.Entry<String, Touch> e : touched.entrySet()) {
        String key = e.getKey();
        Touch touch = e.getValue();
        if (touch.current != null) {
          store.put(key, touch.current.encode());
          if (!touch.marked) {
            clearing.stored(job, key);
          }
          BlockIndexEntry entry = touch.current.toEntry(source, key.substring(source.length() + 1));
          context.forward(new Record<Object, Object>(key, entry, timestamp), sink);
          metrics.entries.increment();
        } else if (touch.existed) {
          store.delete(key);
          if (touch.marked) {
            clearing.deleted(job, key);
          }
          context.forward(new Record<Object, Object>(key, null, timestamp), sink);
          (touch.cleared ? metrics.tombstonesCleared : metrics.tombstonesRemoved).increment();
        }
      }
    }

    BatchSummary summary() {
      long engineMs = batch.engineTs() == null ? ts : (long) Math.floor(batch.engineTs() * 1000.0);
      return new BatchSummary(
          source,
          batch.seq(),
          ts,
          engineMs,
          batch.marker(),
          stores,
          removals,
          clears,
          residentBlocks,
          residentTokens,
          Arrays.copyOf(lifetimes, lifetimeCount),
          storesBySession,
          null,
          residentReset,
          false);
    }
  }
}
