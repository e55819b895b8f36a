package io.prefixlog.analysis.mrc;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The reference: one LRU cache of one capacity, simulated directly with an access-ordered {@link
 * LinkedHashMap} (what LMCache's simulator does with an {@code OrderedDict}, once per capacity).
 * The same cache as {@link MrcAnalyzer} models: every chunk of a request is accessed in order, hit
 * or not; chunk i is judged after chunks 0..i−1 were accessed. Both semantics from one run. One
 * cache: a caller with several models keeps one simulator per model.
 */
public final class NaiveLru {
  private final long capacity;
  private final Map<Long, Boolean> cache;
  private long requests;
  private long accesses;
  private long units;
  private long perChunkHits;
  private long perChunkUnitHits;
  private long prefixHits;
  private long prefixUnitHits;

  /**
   * @param capacity chunks the cache holds; 0 holds nothing
   */
  public NaiveLru(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
    }
    this.capacity = capacity;
    this.cache =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > NaiveLru.this.capacity;
          }
        };
  }

  public void accept(LookupRequest request) {
    accept(request.keysNoCopy(), 0, request.chunkCount(), request.chunkWeight(), request.seqLen());
  }

  /**
   * One request.
   *
   * @return its leading run of hits ({@link Semantics#PREFIX} hit chunks)
   */
  public int accept(long[] chunkKeys, int from, int to, long chunkWeight, long seqLen) {
    LookupRequest.checkShape(
        to - from, chunkWeight, seqLen, LookupRequest.UNKNOWN, LookupRequest.UNKNOWN);
    requests++;
    units += seqLen;
    int leading = 0;
    boolean inLeadingRun = true;
    for (int i = from; i < to; i++) {
      Long key = chunkKeys[i];
      boolean hit = cache.get(key) != null; // a hit becomes most recently used
      if (!hit) {
        cache.put(key, Boolean.TRUE); // evicts the least recently used beyond capacity
      }
      accesses++;
      if (hit) {
        perChunkHits++;
        perChunkUnitHits += chunkWeight;
        if (inLeadingRun) {
          leading++;
          prefixHits++;
          prefixUnitHits += chunkWeight;
        }
      } else {
        inLeadingRun = false;
      }
    }
    return leading;
  }

  public long capacity() {
    return capacity;
  }

  public long requests() {
    return requests;
  }

  public long accesses() {
    return accesses;
  }

  /** Σ seq_len. */
  public long units() {
    return units;
  }

  public long hits(Semantics semantics) {
    return semantics == Semantics.PER_CHUNK ? perChunkHits : prefixHits;
  }

  public long unitHits(Semantics semantics) {
    return semantics == Semantics.PER_CHUNK ? perChunkUnitHits : prefixUnitHits;
  }

  public double hitRate(Semantics semantics, Weighting weighting) {
    if (weighting == Weighting.CHUNKS) {
      return accesses == 0 ? 0 : (double) hits(semantics) / accesses;
    }
    return units == 0 ? 0 : (double) unitHits(semantics) / units;
  }
}
