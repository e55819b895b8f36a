package io.prefixlog.tools.ui;

import com.fasterxml.jackson.databind.ObjectReader;
import io.prefixlog.core.chunk.ChunkLookupResolver;
import io.prefixlog.core.chunk.LookupChains;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The chunk-prefix hit the session's history allowed, per turn: how many of the turn's leading
 * chunks (LMCache-compatible chunk hashes from {@code chunk.lookups}) an earlier turn of the same
 * session had already sent. That is what a prefix cache that kept the whole session could have
 * served, next to what the engine reports it served (its cached tokens).
 *
 * <p>The hashes are prefix-chained (hash i covers chunks 0..i), so the leading run of hashes found
 * among earlier turns' hashes is exactly the longest prefix shared with any earlier turn: the count
 * stops at the first miss.
 *
 * <p>The session page fetches its turns' lookup records by offset (the index keeps no hashes) and
 * keeps the result per session while its lookups are the same records. Version 2 records, which
 * list only the hashes after those shared with the previous turn of their chain, are resolved chain
 * by chain in {@code seq} order ({@link ChunkLookupResolver}); a turn whose previous turn's lookup
 * is gone (retention, erasure) has no figure until its chain's next whole record, and is counted.
 */
final class ChunkPrefix {
  /**
   * One turn's figure.
   *
   * @param chunks full chunks the turn's prompt has
   * @param seen how many of its leading chunks an earlier turn of the session sent
   * @param chunkSize what one chunk counts, in {@code unit}
   */
  record Hit(int chunks, int seen, int chunkSize, String unit) {
    /** The seen chunks' size in the lookup's unit. */
    long seenUnits() {
      return (long) seen * chunkSize;
    }
  }

  /**
   * A session's figures.
   *
   * @param hits per turn, keyed {@code chain/seq}
   * @param unresolved turns whose lookup could not be resolved: it refers to a previous turn whose
   *     lookup is not on the topic
   */
  record Figures(Map<String, Hit> hits, long unresolved) {
    static final Figures NONE = new Figures(Map.of(), 0);
  }

  private static final ObjectReader RECORD = Json.mapper().readerFor(ChunkLookupRecord.class);

  /** A session's lists while they are resolved: far more than the longest session needs. */
  private static final long RESOLVE_BYTES = 256L << 20;

  /** Sessions whose figures are kept; a session page is computed again after that many others. */
  private static final int CACHED_SESSIONS = 256;

  private record Cached(Map<String, Long> offsets, Figures figures) {}

  private final Map<String, Cached> cache =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
          return size() > CACHED_SESSIONS;
        }
      };

  /** Reads records of the lookups topic by partition and offset. */
  interface Fetch {
    Map<Long, RecordFetcher.Located> fetch(int partition, List<Long> offsets)
        throws RecordFetcher.FetchException;
  }

  /**
   * The figures of a session's turns, keyed {@code chain/seq}; a turn without a lookup (or whose
   * lookup record is gone since it was indexed) has none.
   *
   * @param turns the session's turns, oldest first (the timeline's order)
   * @param lookups the session's lookups from the index, keyed {@code chain/seq}
   */
  Figures of(
      String sessionKey, List<TurnInfo> turns, Map<String, ChunkIndex.Lookup> lookups, Fetch fetch)
      throws RecordFetcher.FetchException {
    if (lookups.isEmpty()) {
      return Figures.NONE;
    }
    Map<String, Long> offsets = new TreeMap<>();
    lookups.forEach((id, l) -> offsets.put(id, l.partition() * (1L << 48) + l.offset()));
    synchronized (cache) {
      Cached c = cache.get(sessionKey);
      if (c != null && c.offsets().equals(offsets)) {
        return c.figures();
      }
    }
    Map<Integer, List<Long>> byPartition = new TreeMap<>();
    for (ChunkIndex.Lookup l : lookups.values()) {
      byPartition.computeIfAbsent(l.partition(), p -> new ArrayList<>()).add(l.offset());
    }
    Map<String, ChunkLookupRecord> records = new HashMap<>();
    for (Map.Entry<Integer, List<Long>> e : byPartition.entrySet()) {
      Map<Long, RecordFetcher.Located> found = fetch.fetch(e.getKey(), e.getValue());
      for (Map.Entry<String, ChunkIndex.Lookup> l : lookups.entrySet()) {
        if (l.getValue().partition() != e.getKey()) {
          continue;
        }
        RecordFetcher.Located r = found.get(l.getValue().offset());
        String expectedKey =
            sessionKey
                + "/"
                + (l.getValue().chain().isEmpty() ? "" : l.getValue().chain() + "/")
                + l.getValue().seq();
        if (r == null || r.value() == null || !expectedKey.equals(r.key())) {
          continue; // erased or compacted since it was indexed: the turn shows no figure
        }
        try {
          ChunkLookupRecord record = RECORD.readValue(r.value());
          if (record != null) {
            records.put(l.getKey(), record);
          }
        } catch (IOException ex) {
          // Counted by the index when it could not read the record; here it only lacks a figure.
        }
      }
    }
    Map<String, List<String>> hashes = new HashMap<>();
    long unresolved = resolve(sessionKey, lookups, records, hashes);
    Figures figures = new Figures(compute(turns, lookups, hashes), unresolved);
    synchronized (cache) {
      cache.put(sessionKey, new Cached(offsets, figures));
    }
    return figures;
  }

  /**
   * Resolves the records chain by chain in {@code seq} order into {@code hashes}, keyed {@code
   * chain/seq}; returns how many could not be.
   */
  private static long resolve(
      String sessionKey,
      Map<String, ChunkIndex.Lookup> lookups,
      Map<String, ChunkLookupRecord> records,
      Map<String, List<String>> hashes) {
    List<Map.Entry<String, ChunkIndex.Lookup>> ordered = new ArrayList<>(lookups.entrySet());
    ordered.sort(
        Comparator.comparing((Map.Entry<String, ChunkIndex.Lookup> e) -> e.getValue().chain())
            .thenComparingLong(e -> e.getValue().seq()));
    ChunkLookupResolver resolver = new ChunkLookupResolver(RESOLVE_BYTES);
    long unresolved = 0;
    for (Map.Entry<String, ChunkIndex.Lookup> e : ordered) {
      ChunkLookupRecord record = records.get(e.getKey());
      if (record == null) {
        continue; // gone since it was indexed: the next turn of its chain cannot refer to it
      }
      ChunkIndex.Lookup l = e.getValue();
      String key = sessionKey + "/" + (l.chain().isEmpty() ? "" : l.chain() + "/") + l.seq();
      try {
        if (resolver.resolve(key, record) instanceof LookupChains.Resolved<List<String>> r) {
          hashes.put(e.getKey(), r.hashes());
        } else {
          unresolved++;
        }
      } catch (IllegalArgumentException ex) {
        // A record without its hashes: the index counted it as read; here it lacks a figure.
      }
    }
    return unresolved;
  }

  /**
   * The figures from the hashes themselves: each turn, oldest first, against the hashes every
   * earlier turn sent.
   */
  static Map<String, Hit> compute(
      List<TurnInfo> turns,
      Map<String, ChunkIndex.Lookup> lookups,
      Map<String, List<String>> hashesById) {
    Set<String> seen = new HashSet<>();
    Map<String, Hit> hits = new HashMap<>();
    for (TurnInfo t : turns) {
      String id = t.chain() + "/" + t.seq();
      List<String> hashes = hashesById.get(id);
      ChunkIndex.Lookup lookup = lookups.get(id);
      if (hashes == null || lookup == null) {
        continue;
      }
      int leading = 0;
      while (leading < hashes.size() && seen.contains(hashes.get(leading))) {
        leading++;
      }
      hits.put(id, new Hit(hashes.size(), leading, lookup.chunkSize(), lookup.unit()));
      seen.addAll(hashes);
    }
    return Map.copyOf(hits);
  }
}
