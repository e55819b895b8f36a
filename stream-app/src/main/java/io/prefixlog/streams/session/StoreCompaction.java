package io.prefixlog.streams.session;

import java.lang.reflect.Field;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.internals.RocksDBStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites the RocksDB files that hold a key range of a persistent key-value store, so that values
 * deleted from that range leave the disk now. A RocksDB delete only writes a tombstone: the old
 * value stays in its SST file until a compaction happens to merge that file, which for a quiet
 * range can be never. An erasure has to mean the bytes are gone.
 *
 * <p>Kafka Streams offers no API for it. The store handed to a processor wraps (metering, change
 * logging) a {@link RocksDBStore} whose {@code RocksDB} handle is a package-private field; its data
 * lives in the default column family. This class reaches it by reflection, and says so when it
 * cannot: a Kafka upgrade that moves the field turns {@link #compact} into {@code false} (reported
 * as {@code state_compacted: false} and logged), and {@code SessionErasureTest} fails on it, rather
 * than an erasure silently keeping the bytes.
 */
final class StoreCompaction {
  private static final Logger LOGGER = LoggerFactory.getLogger(StoreCompaction.class);

  private StoreCompaction() {}

  /**
   * Compacts {@code [from, to)} of the store's RocksDB (keys in their serialised form). True when
   * RocksDB rewrote the range: the deleted values of that range are no longer in its live files.
   */
  static boolean compact(StateStore store, byte[] from, byte[] to) {
    RocksDB db = rocksDb(store);
    if (db == null) {
      return false;
    }
    try {
      // compactRange flushes the memtable first when it overlaps the range, and compacts every
      // level down to the last, where tombstones and the values they cover are dropped.
      db.compactRange(from, to);
      return true;
    } catch (RocksDBException e) {
      LOGGER
          .atWarn()
          .setMessage("RocksDB could not compact the erased range; its files keep the bytes")
          .addKeyValue("store", store.name())
          .addKeyValue("status", e.getStatus() == null ? null : e.getStatus().getCodeString())
          .log();
      return false;
    }
  }

  private static RocksDB rocksDb(StateStore store) {
    StateStore inner = store;
    while (inner instanceof WrappedStateStore<?, ?, ?> wrapped) {
      inner = wrapped.wrapped();
    }
    if (!(inner instanceof RocksDBStore rocks)) {
      LOGGER
          .atWarn()
          .setMessage("not a RocksDB store: its files cannot be compacted on erasure")
          .addKeyValue("store", store.name())
          .addKeyValue("type", inner.getClass().getName())
          .log();
      return null;
    }
    try {
      Field field = RocksDBStore.class.getDeclaredField("db");
      field.setAccessible(true);
      return (RocksDB) field.get(rocks);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOGGER
          .atWarn()
          .setMessage("cannot reach the RocksDB handle of the store (Kafka Streams changed?)")
          .addKeyValue("store", store.name())
          .addKeyValue("error", e.toString())
          .log();
      return null;
    }
  }
}
