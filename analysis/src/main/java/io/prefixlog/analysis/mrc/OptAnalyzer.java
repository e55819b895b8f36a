package io.prefixlog.analysis.mrc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The optimal (Belady/MIN) hit rate at every capacity, next to {@link MrcAnalyzer}'s LRU curve,
 * from the same requests. Requests are kept (8 bytes per chunk lookup, plus 12 per request) until
 * {@link #finish()}, which numbers the keys densely and computes the OPT stack distances of every
 * lookup in one forward pass ({@link OptStack}: O(log V) per lookup, V distinct keys).
 *
 * <p><b>The cache being bounded.</b> The same as {@link MrcAnalyzer}'s, except for the eviction
 * choice: per model a cache of C chunks, each chunk one slot, every chunk of a request accessed in
 * prompt order; a missed chunk is always inserted (demand paging, no bypass), and when the cache is
 * full the cached chunk whose next lookup is farthest in the future is evicted (never the one being
 * inserted). No eviction policy of such a cache has more {@link Semantics#PER_CHUNK} hits at
 * capacity C (Belady 1966, Mattson et al. 1970); an admission policy that may skip inserting a
 * chunk can do better (with C = 1, a b a: MIN 0 hits, skipping b 1 hit), so this is the bound for
 * eviction, not for admission.
 *
 * <ul>
 *   <li>{@link Semantics#PER_CHUNK}: the MIN cache's hits. The bound: no eviction policy of this
 *       cache has more per-chunk hits at capacity C, and since a request's prefix hits are some of
 *       its per-chunk hits, no eviction policy has more {@link Semantics#PREFIX} hits either.
 *   <li>{@link Semantics#PREFIX}: the MIN cache's hits counted as a prefix cache counts them (a
 *       request's leading run of MIN hits). Informative only, and not a bound: MIN maximises hits
 *       anywhere in a request, so a policy that keeps leading chunks can have more leading hits.
 *       Even with prefix-chained keys (docs/design.md#records) MIN's hits need not be leading runs:
 *       inserting a missed child chunk (demand paging) may evict its parent, whose next use is
 *       sooner.
 * </ul>
 *
 * So the bound for a prefix cache is the per-chunk MIN figure. It is not necessarily reachable by a
 * prefix cache; with chained keys LRU's two semantics coincide, and the gap between MIN per chunk
 * and LRU is exactly what a better eviction policy could gain at most.
 *
 * <p>Unit-weighted rates: MIN minimises missed chunks, not missed units; with one chunk size per
 * model (the usual case) the two are proportional and the bound holds for units too. Exact only:
 * SHARDS sampling does not carry over to MIN (the MIN stack of a sample of keys is not the sample
 * of the MIN stack, unlike LRU's), so there is no sampled variant. Not thread-safe.
 */
public final class OptAnalyzer implements LookupAnalyzer {
  private final Map<String, Buffer> models = new HashMap<>();
  private Buffer last;
  private final RequestIntake intake = new RequestIntake();

  /** {@inheritDoc} The timestamp plays no part: the input order is the access order. */
  @Override
  public void accept(
      long timestampMs,
      String model,
      long[] chunkKeys,
      int from,
      int to,
      long chunkWeight,
      long seqLen,
      long promptTokens,
      long cachedTokens) {
    intake.check(model, chunkKeys, from, to);
    LookupRequest.checkShape(to - from, chunkWeight, seqLen, promptTokens, cachedTokens);
    Buffer buffer = last;
    if (buffer == null || !(buffer.model == model || buffer.model.equals(model))) {
      buffer = models.computeIfAbsent(model, Buffer::new);
      last = buffer;
    }
    buffer.add(chunkKeys, from, to, chunkWeight, seqLen, promptTokens, cachedTokens);
  }

  /** Computes the curves; the analyzer takes no more requests. */
  public OptimalCurves finish() {
    intake.finish();
    List<Buffer> buffers = new ArrayList<>(models.values());
    buffers.sort(Comparator.comparing(b -> b.model));
    Map<String, Curve> curves = new LinkedHashMap<>();
    for (Buffer buffer : buffers) {
      curves.put(buffer.model, buffer.curve());
    }
    models.clear();
    last = null;
    Curve overall =
        curves.isEmpty()
            ? new Curve(Sampling.none(), Totals.EMPTY, 0, HitCdf.EMPTY, HitCdf.EMPTY)
            : Curve.sum(Sampling.none(), List.copyOf(curves.values()));
    return new OptimalCurves(overall, curves);
  }

  /** One model's requests until {@link #finish()}. */
  private static final class Buffer {
    final String model;
    final TallyAccumulator total = new TallyAccumulator(new int[0]);
    long[] keys = new long[1024];
    int lookups;
    int[] ends = new int[64]; // request r holds keys[ends[r - 1] .. ends[r])
    long[] weights = new long[64];
    int requests;

    Buffer(String model) {
      this.model = model;
    }

    void add(
        long[] chunkKeys, int from, int to, long weight, long seqLen, long prompt, long cached) {
      int chunks = to - from;
      if (lookups + (long) chunks > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException(
            "model " + model + ": more than " + (Integer.MAX_VALUE - 8) + " chunk lookups");
      }
      if (lookups + chunks > keys.length) {
        keys =
            Arrays.copyOf(
                keys,
                (int)
                    Math.min(Integer.MAX_VALUE - 8, Math.max(lookups + chunks, keys.length * 2L)));
      }
      System.arraycopy(chunkKeys, from, keys, lookups, chunks);
      lookups += chunks;
      if (requests == ends.length) {
        ends = Arrays.copyOf(ends, requests * 2);
        weights = Arrays.copyOf(weights, requests * 2);
      }
      ends[requests] = lookups;
      weights[requests] = weight;
      requests++;
      total.addRequest(chunks, weight, seqLen, chunks, prompt, cached);
    }

    Curve curve() {
      // Dense ids, so that the passes index arrays instead of hashing.
      LongIntMap index = new LongIntMap(Math.min(lookups, 1 << 20));
      int[] ids = new int[lookups];
      int distinct = 0;
      for (int i = 0; i < lookups; i++) {
        int slot = index.find(keys[i]);
        if (slot >= 0) {
          ids[i] = index.valueAt(slot);
        } else {
          index.insertAt(~slot, keys[i], distinct);
          ids[i] = distinct++;
        }
      }
      index = null;
      keys = null;
      int[] distances = OptStack.distances(ids, lookups, distinct);
      ids = null;

      // The histograms, as ModelState keeps LRU's: per lookup, and the running maximum of the
      // request's distances for the prefix semantics.
      Histogram perChunk = new Histogram();
      Histogram prefix = new Histogram();
      perChunk.ensure(distinct + 1);
      prefix.ensure(distinct + 1);
      int start = 0;
      for (int r = 0; r < requests; r++) {
        long weight = weights[r];
        perChunk.useWeight(weight);
        prefix.useWeight(weight);
        int running = 0;
        for (int i = start; i < ends[r]; i++) {
          int d = distances[i];
          if (d != StackDistances.COLD) {
            perChunk.counts[d]++;
            if (perChunk.units != null) {
              perChunk.units[d] += weight;
            }
          }
          if (d > running) {
            running = d;
          }
          if (running != StackDistances.COLD) {
            prefix.counts[running]++;
            if (prefix.units != null) {
              prefix.units[running] += weight;
            }
          }
        }
        start = ends[r];
      }
      return new Curve(
          Sampling.none(), total.totals(), distinct, HitCdf.of(perChunk), HitCdf.of(prefix));
    }
  }
}
