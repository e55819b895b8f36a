package io.prefixlog.tools.ui;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import io.prefixlog.core.rebuild.TurnKey;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The UI's index of {@code chunk.lookups}: per turn ({@code session_key/chain/seq}, as the deltas),
 * the lookup's metadata and where its record is. The chunk hashes themselves are not kept (a
 * hundred per turn would weigh more than the delta index): a session page fetches its turns'
 * lookups by offset, as a turn page fetches its deltas ({@link ChunkPrefix}).
 *
 * <p>A tombstone removes its turn's lookup. The hash-only lookups of requests the capture sampling
 * left out ({@code body_omitted}, keyed {@code session_key/ts/request_id}) belong to no turn: they
 * are counted, not indexed. A record whose key or value cannot be read is counted with where it
 * was.
 *
 * <p>Thread-safe: one writer (the follower), many readers (the HTTP threads).
 */
final class ChunkIndex {
  /**
   * One turn's lookup.
   *
   * @param chunks full chunks hashed (the tail, {@code seqLen mod chunkSize}, is not)
   * @param chunkSize what one chunk counts, in {@code unit}
   * @param unit {@code bytes} of the rendered prompt, or {@code tokens}
   */
  record Lookup(
      String chain, long seq, int partition, long offset, int chunks, int chunkSize, String unit) {}

  /**
   * Only the fields the index keeps; the hashes are counted and dropped. A version 2 record's
   * chunks are the {@code prefix_chunks} it shares with the previous turn and its {@code
   * tail_hashes}.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Header(
      @JsonProperty("chunk_size") Integer chunkSize,
      @JsonProperty("chunk_unit") String chunkUnit,
      @JsonProperty("chunk_hashes") List<Object> chunkHashes,
      @JsonProperty("body_omitted") String bodyOmitted,
      @JsonProperty("prefix_chunks") Integer prefixChunks,
      @JsonProperty("tail_hashes") List<Object> tailHashes) {
    /** Full chunks of the prompt, in either version. */
    int chunks() {
      if (chunkHashes != null) {
        return chunkHashes.size();
      }
      return (prefixChunks == null ? 0 : prefixChunks)
          + (tailHashes == null ? 0 : tailHashes.size());
    }
  }

  private static final ObjectReader HEADER = Json.mapper().readerFor(Header.class);

  private final ReadWriteLock lock = new ReentrantReadWriteLock();

  /**
   * Per session, its lookups sorted by chain and seq: a list, not a map per session, because a
   * million turns' map entries and {@code chain/seq} keys weighed 157 MiB, the lists 70 MiB (heap
   * after GC, 100 k sessions of 10 turns).
   */
  private final Map<String, List<Lookup>> sessions = new HashMap<>();

  private static final Comparator<Lookup> ORDER =
      Comparator.comparing(Lookup::chain).thenComparingLong(Lookup::seq);
  private long omitted;
  private final ReadCounts counts = new ReadCounts();

  /** Applies one record of the lookups topic: a turn's lookup (its value) or a tombstone (null). */
  void put(String key, byte[] value, int partition, long offset) {
    Header h = null;
    String problem = null;
    if (value != null) {
      try {
        h = HEADER.readValue(value);
        if (h == null) {
          problem = ReadCounts.where(partition, offset, "the record is JSON null");
        }
      } catch (IOException e) {
        problem =
            ReadCounts.where(
                partition, offset, "not a chunk lookup: " + e.getClass().getSimpleName());
      }
    }
    boolean hashOnly = h != null && h.bodyOmitted() != null;
    java.util.Optional<TurnKey> turn = hashOnly ? java.util.Optional.empty() : TurnKey.parse(key);
    if (problem == null && !hashOnly && turn.isEmpty()) {
      problem = ReadCounts.where(partition, offset, "key is not session/chain/seq");
    }
    lock.writeLock().lock();
    try {
      if (!counts.read(problem)) {
        return;
      }
      if (hashOnly) {
        omitted++;
        return;
      }
      TurnKey k = turn.get();
      Lookup next =
          new Lookup(
              k.chain().intern(),
              k.seq(),
              partition,
              offset,
              h == null ? 0 : h.chunks(),
              h == null || h.chunkSize() == null ? 0 : h.chunkSize(),
              h == null || h.chunkUnit() == null ? "bytes" : h.chunkUnit().intern());
      List<Lookup> s = sessions.get(k.sessionKey());
      int at = s == null ? -1 : Collections.binarySearch(s, next, ORDER);
      if (h == null) {
        if (at >= 0) {
          s.remove(at);
          if (s.isEmpty()) {
            sessions.remove(k.sessionKey());
          }
        }
        return;
      }
      if (s == null) {
        s = new ArrayList<>(4);
        sessions.put(k.sessionKey(), s);
      }
      if (at >= 0) {
        s.set(at, next);
      } else {
        s.add(-at - 1, next);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The session's lookups, keyed {@code chain/seq}; empty when it has none. */
  Map<String, Lookup> of(String sessionKey) {
    lock.readLock().lock();
    try {
      List<Lookup> s = sessions.get(sessionKey);
      if (s == null) {
        return Map.of();
      }
      Map<String, Lookup> byId = new HashMap<>();
      for (Lookup l : s) {
        byId.put(l.chain() + "/" + l.seq(), l);
      }
      return Map.copyOf(byId);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Hash-only lookups of sampled-out requests: on the topic, in no turn. */
  long omitted() {
    lock.readLock().lock();
    try {
      return omitted;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Records read so far (tombstones and unreadable ones included), and the unreadable ones. */
  ReadCounts.Snapshot counts() {
    return counts.snapshot();
  }
}
