package io.prefixlog.analysis.mrc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reference for {@link OptAnalyzer}: one MIN cache of one capacity, simulated directly as
 * Belady described it. Requests are kept until {@link #finish()}; then a backward pass finds each
 * lookup's next use and a forward pass runs the cache: a hit stays, a miss is inserted, and when
 * the cache is over capacity the entry whose next use is farthest leaves (entries never used again
 * first). The same cache as {@link OptAnalyzer} bounds; both semantics from one run. One cache: a
 * caller with several models keeps one simulator per model.
 */
public final class NaiveMin {
  private final long capacity;
  private final List<long[]> requests = new ArrayList<>();
  private final List<long[]> shapes = new ArrayList<>(); // {chunkWeight, seqLen}
  private final NaiveHits counts = new NaiveHits();
  private boolean finished;

  /**
   * @param capacity chunks the cache holds; 0 holds nothing
   */
  public NaiveMin(long capacity) {
    this.capacity = NaiveHits.checkCapacity(capacity);
  }

  public void accept(LookupRequest request) {
    accept(request.keysNoCopy(), 0, request.chunkCount(), request.chunkWeight(), request.seqLen());
  }

  /** One request (its keys are copied). */
  public void accept(long[] chunkKeys, int from, int to, long chunkWeight, long seqLen) {
    if (finished) {
      throw new IllegalStateException("finish() was called");
    }
    LookupRequest.checkShape(
        to - from, chunkWeight, seqLen, LookupRequest.UNKNOWN, LookupRequest.UNKNOWN);
    requests.add(Arrays.copyOfRange(chunkKeys, from, to));
    shapes.add(new long[] {chunkWeight, seqLen});
  }

  /** Runs the cache over every request accepted; afterwards the counts are final. */
  public void finish() {
    if (finished) {
      throw new IllegalStateException("finish() was already called");
    }
    finished = true;
    int n = 0;
    for (long[] keys : requests) {
      n += keys.length;
    }
    long[] next = new long[n];
    Map<Long, Long> later = new HashMap<>();
    int i = n;
    for (int r = requests.size() - 1; r >= 0; r--) {
      long[] keys = requests.get(r);
      for (int k = keys.length - 1; k >= 0; k--) {
        i--;
        // never used again: later than every real next use, and distinct per lookup
        next[i] = later.getOrDefault(keys[k], Long.MAX_VALUE - i);
        later.put(keys[k], (long) i);
      }
    }
    Map<Long, Long> cached = new HashMap<>(); // key -> its next use
    TreeMap<Long, Long> byNextUse = new TreeMap<>(); // next use -> key
    i = 0;
    for (int r = 0; r < requests.size(); r++) {
      long[] keys = requests.get(r);
      long weight = shapes.get(r)[0];
      counts.startRequest(shapes.get(r)[1]);
      for (long key : keys) {
        Long previous = cached.remove(key);
        boolean hit = previous != null;
        if (hit) {
          byNextUse.remove(previous);
        }
        cached.put(key, next[i]);
        byNextUse.put(next[i], key);
        if (cached.size() > capacity) {
          // Belady: the farthest next use leaves; the key just looked up is never the one chosen
          // unless the cache holds nothing else (capacity 0), as a demand-paged cache must hold it.
          Map.Entry<Long, Long> farthest = byNextUse.lastEntry();
          if (farthest.getValue() == key && capacity > 0) {
            farthest = byNextUse.lowerEntry(farthest.getKey());
          }
          byNextUse.remove(farthest.getKey());
          cached.remove(farthest.getValue());
        }
        i++;
        counts.access(hit, weight);
      }
    }
    requests.clear();
    shapes.clear();
  }

  public long capacity() {
    return capacity;
  }

  public long accesses() {
    checkFinished();
    return counts.accesses();
  }

  /** Σ seq_len. */
  public long units() {
    checkFinished();
    return counts.units();
  }

  public long hits(Semantics semantics) {
    checkFinished();
    return counts.hits(semantics);
  }

  public long unitHits(Semantics semantics) {
    checkFinished();
    return counts.unitHits(semantics);
  }

  public double hitRate(Semantics semantics, Weighting weighting) {
    checkFinished();
    return counts.hitRate(semantics, weighting);
  }

  private void checkFinished() {
    if (!finished) {
      throw new IllegalStateException("call finish() first");
    }
  }
}
