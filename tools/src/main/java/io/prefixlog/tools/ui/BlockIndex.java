package io.prefixlog.tools.ui;

import com.fasterxml.jackson.databind.ObjectReader;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The UI's copy of {@code kv.block-index}: the blocks each engine source holds now, by hash, and
 * the blocks each engine session id stored. Fed the compacted topic from the beginning ({@link
 * #put}): a value replaces its block, a tombstone (the last copy gone) removes it, so the index
 * holds what the stream app's store holds. A record whose key or value cannot be read is counted,
 * never skipped silently.
 *
 * <p>Why in memory: an engine holds thousands to a few hundred thousand blocks (vLLM's GPU cache),
 * a hundred bytes each here; a page is a walk of one source's sorted map, and a search by hash is a
 * range of it.
 *
 * <p>Thread-safe: one writer (the follower), many readers (the HTTP threads).
 */
final class BlockIndex {
  /**
   * One resident block, as its latest record says.
   *
   * @param parent the block it extends, or {@code ""} for a first block
   * @param tokens its tokens, or -1 when the engine did not say
   * @param session the engine's session id of the request that stored it last, or {@code ""}
   * @param batch the sequence number of the KV batch that stored it last, or -1
   */
  record Block(
      String source,
      String hash,
      String parent,
      int tokens,
      int copies,
      String medium,
      long firstStoredMs,
      long lastStoredMs,
      String session,
      long batch) {}

  /** A page of one source's blocks: {@code matched} in all, {@code rows} shown. */
  record Page(long matched, List<Block> rows) {}

  private static final ObjectReader READER = Json.mapper().readerFor(BlockIndexEntry.class);

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final Map<String, NavigableMap<String, Block>> bySource = new TreeMap<>();
  private final Map<String, Set<Block>> bySession = new HashMap<>();
  private final ReadCounts counts = new ReadCounts();

  /** Applies one record of the block index topic: a block (its value) or a tombstone (null). */
  void put(String key, byte[] value, int partition, long offset) {
    int slash = key == null ? -1 : key.lastIndexOf('/');
    Block block = null;
    String problem = null;
    if (slash <= 0 || slash == key.length() - 1) {
      problem = ReadCounts.where(partition, offset, "key is not source/hash");
    } else if (value != null) {
      try {
        BlockIndexEntry e = READER.readValue(value);
        if (e == null) {
          throw new IOException("the record is JSON null");
        }
        block =
            new Block(
                key.substring(0, slash).intern(),
                key.substring(slash + 1),
                e.parentBlockHash() == null ? "" : e.parentBlockHash(),
                e.tokenCount() == null ? -1 : e.tokenCount(),
                e.copies() == null ? 1 : e.copies(),
                e.medium() == null ? "" : e.medium().intern(),
                e.firstStoredMs() == null ? 0 : e.firstStoredMs(),
                e.lastStoredMs() == null ? 0 : e.lastStoredMs(),
                e.sessionId() == null ? "" : e.sessionId(),
                e.seq() == null ? -1 : e.seq());
      } catch (IOException e) {
        // The message names the exception's type, never the record's content.
        problem =
            ReadCounts.where(
                partition, offset, "not a block-index record: " + e.getClass().getSimpleName());
      }
    }
    lock.writeLock().lock();
    try {
      if (!counts.read(problem)) {
        return;
      }
      String source = key.substring(0, slash);
      String hash = key.substring(slash + 1);
      NavigableMap<String, Block> blocks = bySource.computeIfAbsent(source, s -> new TreeMap<>());
      Block before = block == null ? blocks.remove(hash) : blocks.put(hash, block);
      if (blocks.isEmpty()) {
        bySource.remove(source);
      }
      if (before != null && !before.session().isEmpty()) {
        Set<Block> stored = bySession.get(before.session());
        if (stored != null && stored.remove(before) && stored.isEmpty()) {
          bySession.remove(before.session());
        }
      }
      if (block != null && !block.session().isEmpty()) {
        bySession.computeIfAbsent(block.session(), s -> new HashSet<>()).add(block);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Each source's resident blocks, by source. */
  Map<String, Integer> sources() {
    lock.readLock().lock();
    try {
      Map<String, Integer> counts = new TreeMap<>();
      bySource.forEach((s, blocks) -> counts.put(s, blocks.size()));
      return counts;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * One page of a source's blocks in hash order, those whose hash starts with {@code hashPrefix}
   * (lower case; {@code ""} for all).
   */
  Page page(String source, String hashPrefix, int page, int size) {
    lock.readLock().lock();
    try {
      NavigableMap<String, Block> blocks = bySource.getOrDefault(source, new TreeMap<>());
      NavigableMap<String, Block> range =
          hashPrefix.isEmpty()
              ? blocks
              : blocks.subMap(hashPrefix, true, hashPrefix + Character.MAX_VALUE, false);
      long from = (long) page * size;
      List<Block> rows = new ArrayList<>(size);
      long i = 0;
      for (Block b : range.values()) {
        if (i >= from + size) {
          break;
        }
        if (i >= from) {
          rows.add(b);
        }
        i++;
      }
      return new Page(range.size(), List.copyOf(rows));
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The resident blocks whose latest store came from a request of {@code session}, by source. */
  List<Block> ofSession(String session) {
    lock.readLock().lock();
    try {
      List<Block> blocks = new ArrayList<>(bySession.getOrDefault(session, Set.of()));
      blocks.sort(
          java.util.Comparator.comparing(Block::source)
              .thenComparingLong(Block::firstStoredMs)
              .thenComparing(Block::hash));
      return blocks;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Records read so far (tombstones and unreadable ones included), and the unreadable ones. */
  ReadCounts.Snapshot counts() {
    return counts.snapshot();
  }
}
