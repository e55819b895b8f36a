package io.prefixlog.streams.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Puts every RocksDB store of the process under one memory budget ({@code
 * PREFIXLOG_ROCKSDB_MEMORY}): one LRU block cache shared by all stores, with the memtables charged
 * to it through one {@link WriteBufferManager}, and the index and filter blocks cached in it (high
 * priority, top level pinned) instead of held outside any bound.
 *
 * <p>Why: Kafka Streams gives each store of each partition its own 50 MiB block cache and up to 3 ×
 * 16 MiB of memtables, so the off-heap memory grows with partitions × stores (the session state
 * alone has four stores per partition): 6 partitions could claim ~2.4 GiB, which a container limit
 * turns into an OOM kill. With this setter the block cache and the memtables stay within the budget
 * (RocksDB's own allocations for iterators and compaction come on top, typically a few percent).
 *
 * <p>The cache and the write-buffer manager live as long as the JVM, one pair per budget, shared by
 * every store and stream thread that asks for the same budget; they are never closed while a store
 * may still use them.
 */
public final class BoundedRocksDbMemory implements RocksDBConfigSetter {
  /** The budget in bytes, passed in the streams configuration. */
  public static final String MEMORY_BYTES_CONFIG = "prefixlog.rocksdb.memory.bytes";

  /** The share of the budget the memtables may take (RocksDB's guidance: up to half). */
  static final double MEMTABLE_SHARE = 0.5;

  /** The share of the cache kept for index and filter blocks (high priority). */
  static final double INDEX_FILTER_SHARE = 0.1;

  private record Budget(Cache cache, WriteBufferManager writeBuffers) {}

  private static final Map<Long, Budget> BUDGETS = new ConcurrentHashMap<>();

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    Budget budget = budget(memoryBytes(configs));
    BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
    table.setBlockCache(budget.cache());
    table.setCacheIndexAndFilterBlocks(true);
    table.setCacheIndexAndFilterBlocksWithHighPriority(true);
    table.setPinTopLevelIndexAndFilter(true);
    options.setTableFormatConfig(table);
    options.setWriteBufferManager(budget.writeBuffers());
  }

  @Override
  public void close(String storeName, Options options) {
    // The shared cache and write-buffer manager outlive every store: see the class comment.
  }

  /** The budget of {@code configs}; refuses a missing or non-positive value by name. */
  static long memoryBytes(Map<String, Object> configs) {
    Object value = configs.get(MEMORY_BYTES_CONFIG);
    long bytes;
    try {
      bytes = value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(MEMORY_BYTES_CONFIG + " is not a byte count: " + value);
    }
    if (bytes <= 0) {
      throw new IllegalArgumentException(MEMORY_BYTES_CONFIG + " must be above zero: " + value);
    }
    return bytes;
  }

  /** The one cache and write-buffer manager of a budget in this JVM. */
  static Budget budget(long bytes) {
    return BUDGETS.computeIfAbsent(
        bytes,
        total -> {
          Cache cache = new LRUCache(total, -1, false, INDEX_FILTER_SHARE);
          return new Budget(cache, new WriteBufferManager((long) (total * MEMTABLE_SHARE), cache));
        });
  }

  /** The shared cache of a budget (tests: the stores' caches are this one). */
  static Cache cacheOf(long bytes) {
    return budget(bytes).cache();
  }
}
