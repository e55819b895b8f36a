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
  private final NaiveHits counts = new NaiveHits();
  private long requests;

  /**
   * @param capacity chunks the cache holds; 0 holds nothing
   */
  public NaiveLru(long capacity) {
    this.capacity = NaiveHits.checkCapacity(capacity);
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
    counts.startRequest(seqLen);
    int leading = 0;
    for (int i = from; i < to; i++) {
      Long key = chunkKeys[i];
      boolean hit = cache.get(key) != null; // a hit becomes most recently used
      if (!hit) {
        cache.put(key, Boolean.TRUE); // evicts the least recently used beyond capacity
      }
      if (counts.access(hit, chunkWeight)) {
        leading++;
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
    return counts.accesses();
  }

  /** Σ seq_len. */
  public long units() {
    return counts.units();
  }

  public long hits(Semantics semantics) {
    return counts.hits(semantics);
  }

  public long unitHits(Semantics semantics) {
    return counts.unitHits(semantics);
  }

  public double hitRate(Semantics semantics, Weighting weighting) {
    return counts.hitRate(semantics, weighting);
  }
}
