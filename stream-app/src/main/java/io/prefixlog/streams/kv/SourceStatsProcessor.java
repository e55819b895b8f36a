package io.prefixlog.streams.kv;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.control.ErasureAck;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the statistics of every source (see {@link SourceStatsState}) from the block-index
 * processor's {@link BatchSummary}s and publishes them to the compacted {@code kv.source-stats},
 * keyed by source id.
 *
 * <p>Emission policy: one record per batch would double the index's output for nothing (a busy
 * engine sends a batch per scheduler step), so a changed source is emitted by a wall-clock
 * punctuator at most once per {@code PREFIXLOG_KV_STATS_INTERVAL} (default 10 s) — except at once
 * when a source is first seen and when its index was cleared (AllBlocksCleared, a gap or a restart
 * marker), the moments a reader most needs to know about. Whether a source awaits emission is kept
 * in its state, so a restart of the app emits what was pending.
 *
 * <p>An expired source (silent past {@code PREFIXLOG_KV_SOURCE_EXPIRY}) leaves the store and is
 * tombstoned on the topic at once; if it sends again, it is new.
 */
final class SourceStatsProcessor implements Processor<String, BatchSummary, Object, Object> {
  private final SourceStatsSupplier.Wiring wiring;
  private final Set<String> dirty = new LinkedHashSet<>();

  private ProcessorContext<Object, Object> context;
  private KeyValueStore<String, byte[]> store;

  SourceStatsProcessor(SourceStatsSupplier.Wiring wiring) {
    this.wiring = wiring;
  }

  @Override
  public void init(ProcessorContext<Object, Object> context) {
    this.context = context;
    this.store = context.getStateStore(SourceStatsSupplier.STORE);
    try (KeyValueIterator<String, byte[]> all = store.all()) {
      while (all.hasNext()) {
        KeyValue<String, byte[]> entry = all.next();
        if (SourceStatsState.decode(entry.value).dirty) {
          dirty.add(entry.key);
        }
      }
    }
    context.schedule(wiring.interval(), PunctuationType.WALL_CLOCK_TIME, this::emitChanged);
  }

  @Override
  public void process(Record<String, BatchSummary> record) {
    if (record.value().erasure() != null) {
      obeyErase(record.key(), record.value().erasure(), record.timestamp());
      return;
    }
    String source = record.key();
    if (record.value().expired()) {
      // Expired: the statistics go from the store and, by a tombstone, from the compacted topic.
      store.delete(source);
      dirty.remove(source);
      context.forward(
          new Record<Object, Object>(source, null, record.timestamp()), wiring.statsSink());
      return;
    }
    byte[] stored = store.get(source);
    SourceStatsState state =
        stored == null ? new SourceStatsState() : SourceStatsState.decode(stored);
    state.apply(record.value());
    if (stored == null || record.value().cleared()) {
      emit(source, state, record.timestamp());
      dirty.remove(source);
    } else {
      state.dirty = true;
      dirty.add(source);
    }
    store.put(source, state.encode());
  }

  /**
   * The source's statistics forget the erased sessions and are published at once (the compacted
   * topic's latest value must stop naming them); then the acknowledgement of the whole order.
   */
  private void obeyErase(String source, KvErasure erasure, long timestamp) {
    byte[] stored = store.get(source);
    long removed = 0;
    if (stored != null) {
      SourceStatsState state = SourceStatsState.decode(stored);
      // The statistics hold the ids; the order, their digests.
      java.util.Iterator<String> ids = state.storesBySession.keySet().iterator();
      while (ids.hasNext()) {
        String id = ids.next();
        if (erasure.idDigests().contains(Sha256.hex(id.getBytes(StandardCharsets.UTF_8)))) {
          ids.remove();
          removed++;
        }
      }
      if (removed > 0) {
        emit(source, state, timestamp);
        dirty.remove(source);
        store.put(source, state.encode());
      }
    }
    boolean erased = removed > 0 || erasure.blocksScrubbed() > 0;
    String outcome = erased ? ErasureAck.ERASED : ErasureAck.ABSENT;
    ErasureAck ack =
        new ErasureAck(
            ErasureAck.SCHEMA_VERSION,
            erasure.eraseId(),
            timestamp,
            ErasureAck.SCOPE_KV,
            null,
            source,
            outcome,
            null,
            null,
            null,
            null,
            erasure.blocksScrubbed(),
            removed,
            // The KV stores hold ids and hashes, no content: their old values go at RocksDB's
            // next compaction of the range, which this order does not force.
            false);
    context.forward(
        new Record<Object, Object>(erasure.eraseId(), ack, timestamp), wiring.erasureSink());
    wiring.metrics().erasure(outcome);
  }

  private void emitChanged(long now) {
    for (String source : dirty) {
      byte[] stored = store.get(source);
      if (stored != null) {
        SourceStatsState state = SourceStatsState.decode(stored);
        emit(source, state, now);
        store.put(source, state.encode());
      }
    }
    dirty.clear();
  }

  private void emit(String source, SourceStatsState state, long timestamp) {
    state.dirty = false;
    context.forward(
        new Record<Object, Object>(source, state.toRecord(source), timestamp), wiring.statsSink());
    wiring.metrics().stats.increment();
  }
}
