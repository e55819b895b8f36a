package io.prefixlog.benchmarks.mrc;

import io.prefixlog.analysis.mrc.LookupAnalyzer;
import io.prefixlog.analysis.mrc.NaiveLru;
import io.prefixlog.analysis.mrc.NaiveMin;

/**
 * A deterministic synthetic lookup trace: every chunk key drawn independently from Zipf(α) over
 * {@code keySpace} ranks (Vose's alias table: one 64-bit random number and two table reads per
 * draw), rank r mapped to the 64-bit key {@code mix(r + salt)} (a bijection, so keys are distinct
 * and look like hashes), cut into requests of a uniform {@code minChunks..maxChunks} chunks of
 * {@value #CHUNK_TOKENS} tokens plus a tail of 0–255 tokens, 10 ms apart.
 */
final class ZipfTrace {
  static final long CHUNK_TOKENS = 256;
  static final String MODEL = "bench-model";
  static final long START_MS = 1_790_000_000_000L;
  static final long SPACING_MS = 10;

  final int keySpace;
  final double alpha;
  final long[] keys;
  final int[] ends; // request r holds keys[ends[r - 1] .. ends[r])
  final int requests;

  private ZipfTrace(int keySpace, double alpha, long[] keys, int[] ends, int requests) {
    this.keySpace = keySpace;
    this.alpha = alpha;
    this.keys = keys;
    this.ends = ends;
    this.requests = requests;
  }

  static ZipfTrace generate(
      int lookups, int keySpace, double alpha, int minChunks, int maxChunks, long seed) {
    // Vose's alias method over weights 1 / (r + 1)^alpha.
    double[] prob = new double[keySpace];
    double sum = 0;
    for (int r = 0; r < keySpace; r++) {
      prob[r] = Math.pow(r + 1, -alpha);
      sum += prob[r];
    }
    int[] alias = new int[keySpace];
    int[] small = new int[keySpace];
    int[] large = new int[keySpace];
    int smalls = 0;
    int larges = 0;
    for (int r = 0; r < keySpace; r++) {
      prob[r] = prob[r] * keySpace / sum;
      if (prob[r] < 1) {
        small[smalls++] = r;
      } else {
        large[larges++] = r;
      }
    }
    while (smalls > 0 && larges > 0) {
      int s = small[--smalls];
      int l = large[--larges];
      alias[s] = l;
      prob[l] = prob[l] + prob[s] - 1;
      if (prob[l] < 1) {
        small[smalls++] = l;
      } else {
        large[larges++] = l;
      }
    }
    while (larges > 0) {
      prob[large[--larges]] = 1;
    }
    while (smalls > 0) {
      prob[small[--smalls]] = 1; // rounding leftovers
    }

    long salt = seed * 0x9E3779B97F4A7C15L;
    long state = seed ^ 0x5DEECE66DL;
    long[] keys = new long[lookups];
    for (int i = 0; i < lookups; i++) {
      state += 0x9E3779B97F4A7C15L;
      long random = mix(state);
      int column = (int) (((random >>> 32) * keySpace) >>> 32);
      double coin = (random & 0xFFFFFFFFL) * 0x1.0p-32;
      int rank = coin < prob[column] ? column : alias[column];
      keys[i] = mix(rank + salt);
    }

    int[] ends = new int[lookups / Math.max(1, minChunks) + 1];
    int requests = 0;
    int end = 0;
    int span = maxChunks - minChunks + 1;
    while (end < lookups) {
      state += 0x9E3779B97F4A7C15L;
      int chunks = minChunks + (int) (((mix(state) >>> 32) * span) >>> 32);
      end = (int) Math.min(lookups, (long) end + chunks);
      ends[requests++] = end;
    }
    return new ZipfTrace(keySpace, alpha, keys, ends, requests);
  }

  long lookups() {
    return keys.length;
  }

  long timestampMs(int request) {
    return START_MS + request * SPACING_MS;
  }

  long seqLen(int request, int chunks) {
    return chunks * CHUNK_TOKENS + (mix(request) & 0xFF);
  }

  void feed(LookupAnalyzer analyzer) {
    forEachRequest(
        (r, from, to) ->
            analyzer.accept(
                timestampMs(r), MODEL, keys, from, to, CHUNK_TOKENS, seqLen(r, to - from), -1, -1));
  }

  void feed(NaiveLru lru) {
    forEachRequest((r, from, to) -> lru.accept(keys, from, to, CHUNK_TOKENS, seqLen(r, to - from)));
  }

  void feed(NaiveMin min) {
    forEachRequest((r, from, to) -> min.accept(keys, from, to, CHUNK_TOKENS, seqLen(r, to - from)));
  }

  /** One request of the trace: its index and its chunks, {@code keys[from, to)}. */
  @FunctionalInterface
  private interface RequestSink {
    void accept(int request, int from, int to);
  }

  /** Every request in order, as the consumers above take them: each ends where the next starts. */
  private void forEachRequest(RequestSink sink) {
    int from = 0;
    for (int r = 0; r < requests; r++) {
      int to = ends[r];
      sink.accept(r, from, to);
      from = to;
    }
  }

  /** splitmix64's finalizer: a bijection on 64-bit values. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
