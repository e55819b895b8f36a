package io.prefixlog.analysis.mrc;

import java.util.ArrayList;
import java.util.List;

/** One model's cache during the pass: its LRU stack, histograms and window tallies. */
final class ModelState {
  final String model;
  private final Sampling sampling;
  private final boolean sampleAll;
  private StackDistances stack;
  private Histogram perChunk = new Histogram();
  private Histogram prefix = new Histogram();
  final TallyAccumulator total;
  final TallyAccumulator window; // null without windows
  final TallyAccumulator cumulative; // null without windows
  final List<Window> windows = new ArrayList<>();
  boolean inWindow;
  private int[] distances = new int[64]; // of the current request
  private long[] sampledKeys = new long[64]; // of the current request
  private long compactions; // after release()

  ModelState(
      String model, Sampling sampling, int timelineCapacity, int expectedKeys, int[] limits) {
    this.model = model;
    this.sampling = sampling;
    this.sampleAll = sampling.isExact();
    this.stack = new StackDistances(timelineCapacity, expectedKeys);
    this.total = new TallyAccumulator(new int[0]);
    this.window = limits == null ? null : new TallyAccumulator(limits);
    this.cumulative = limits == null ? null : new TallyAccumulator(limits);
  }

  /**
   * One request: every chunk is accessed in order, hit or miss (so after the request its chunks are
   * the most recently used, the last one first); chunk i's distance is taken after chunks 0..i−1
   * were accessed.
   */
  void accept(long[] keys, int from, int to, long weight, long seqLen, long prompt, long cached) {
    // 1. The stack distances, chunk by chunk (the map slots prefetched first).
    int chunks = to - from;
    if (distances.length < chunks) {
      distances = new int[Math.max(chunks, distances.length * 2)];
    }
    int[] dist = distances;
    int sampled = 0;
    if (sampleAll) {
      stack.prefetch(keys, from, to);
      for (int i = from; i < to; i++) {
        dist[sampled++] = stack.access(keys[i]);
      }
    } else {
      // Sampled keys are few and far between: collect them (touching their map slots) so the
      // scan of the rest of the request hides some of those cache misses, then access them.
      if (sampledKeys.length < chunks) {
        sampledKeys = new long[Math.max(chunks, sampledKeys.length * 2)];
      }
      long[] picked = sampledKeys;
      for (int i = from; i < to; i++) {
        long key = keys[i];
        if (sampling.sampled(key)) {
          picked[sampled++] = key;
          stack.touch(key);
        }
      }
      for (int j = 0; j < sampled; j++) {
        dist[j] = stack.access(picked[j]);
      }
    }

    // 2. The histograms, in a separate loop: their increments are independent of one another, so
    // their cache misses (the arrays span the working set) overlap.
    perChunk.useWeight(weight);
    prefix.useWeight(weight);
    // A distance never exceeds the distinct keys.
    int bound = (int) Math.min(Integer.MAX_VALUE - 8, stack.distinct() + 1L);
    perChunk.ensure(bound);
    prefix.ensure(bound);
    long[] chunkCounts = perChunk.counts;
    long[] chunkUnits = perChunk.units;
    long[] prefixCounts = prefix.counts;
    long[] prefixUnits = prefix.units;
    int running = 0;
    for (int j = 0; j < sampled; j++) {
      int d = dist[j];
      if (d != StackDistances.COLD) {
        chunkCounts[d]++;
        if (chunkUnits != null) {
          chunkUnits[d] += weight;
        }
      }
      if (d > running) {
        running = d;
      }
      if (running != StackDistances.COLD) {
        prefixCounts[running]++;
        if (prefixUnits != null) {
          prefixUnits[running] += weight;
        }
      }
    }

    // 3. The window's buckets at the window capacities.
    TallyAccumulator win = window;
    if (win != null) {
      int buckets = win.limits.length;
      running = 0;
      int runningBucket = 0;
      for (int j = 0; j < sampled; j++) {
        int d = dist[j];
        if (d > running) {
          running = d;
          runningBucket = win.bucket(running);
        }
        int b = d == running ? runningBucket : win.bucket(d);
        if (b < buckets) {
          win.bucketHits[0][b]++;
          win.bucketUnits[0][b] += weight;
        }
        if (runningBucket < buckets) {
          win.bucketHits[1][runningBucket]++;
          win.bucketUnits[1][runningBucket] += weight;
        }
      }
      win.addRequest(chunks, weight, seqLen, sampled, prompt, cached);
    }
    total.addRequest(chunks, weight, seqLen, sampled, prompt, cached);
  }

  Curve curve() {
    return new Curve(
        sampling, total.totals(), stack.distinct(), HitCdf.of(perChunk), HitCdf.of(prefix));
  }

  /** Drops the pass's state once {@link #curve()} has been taken. */
  void release() {
    compactions = stack.compactions();
    stack = null;
    perChunk = null;
    prefix = null;
  }

  long compactions() {
    return stack == null ? compactions : stack.compactions();
  }
}
