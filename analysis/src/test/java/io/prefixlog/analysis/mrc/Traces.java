package io.prefixlog.analysis.mrc;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random lookup traces with repeats, shared prefixes, empty requests and tails. */
final class Traces {
  private Traces() {}

  /**
   * @param keySpace distinct random keys (small ints, 0 included, so the map sees structured keys)
   * @param maxChunks longest request
   * @param models model names m0..m{models-1}
   * @param varyWeights whether chunk weights differ between requests
   */
  static List<LookupRequest> random(
      long seed, int requests, int keySpace, int maxChunks, int models, boolean varyWeights) {
    Random random = new Random(seed);
    List<long[]> documents = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      documents.add(randomKeys(random, 1 + random.nextInt(maxChunks), keySpace));
    }
    List<LookupRequest> trace = new ArrayList<>();
    long clock = 1_700_000_000_000L + random.nextInt(100_000);
    for (int r = 0; r < requests; r++) {
      String model = "m" + random.nextInt(models);
      long[] keys;
      int kind = random.nextInt(10);
      if (kind < 4) {
        // a shared prefix (a system prompt, a conversation so far) plus new chunks
        long[] document = documents.get(random.nextInt(documents.size()));
        int shared = random.nextInt(document.length + 1);
        int fresh = random.nextInt(Math.max(1, maxChunks - shared + 1));
        keys = new long[shared + fresh];
        System.arraycopy(document, 0, keys, 0, shared);
        System.arraycopy(randomKeys(random, fresh, keySpace), 0, keys, shared, fresh);
      } else if (kind < 6 && !trace.isEmpty()) {
        keys = trace.get(random.nextInt(trace.size())).chunkKeys(); // a repeat
      } else if (kind == 6) {
        keys = new long[random.nextInt(2)]; // empty or one chunk
        if (keys.length == 1) {
          keys[0] = random.nextInt(keySpace);
        }
      } else {
        keys = randomKeys(random, random.nextInt(maxChunks + 1), keySpace);
      }
      long weight = varyWeights && random.nextBoolean() ? 1 + random.nextInt(40) : 16;
      long tail = random.nextInt(3) == 0 ? 0 : random.nextInt((int) weight);
      long seqLen = keys.length * weight + tail;
      clock += random.nextInt(400);
      long timestamp = random.nextInt(25) == 0 ? clock - random.nextInt(3_000) : clock;
      LookupRequest request = LookupRequest.of(timestamp, model, keys, weight, seqLen);
      if (random.nextBoolean()) {
        request = request.withEngineTokens(seqLen, random.nextInt((int) seqLen + 1));
      }
      trace.add(request);
    }
    return trace;
  }

  /**
   * Requests over a Zipf-like popularity of {@code keySpace} keys, each chunk drawn on its own, so
   * that distances spread over the whole working set.
   */
  static List<LookupRequest> skewed(long seed, int requests, int keySpace, int maxChunks) {
    Random random = new Random(seed);
    double[] cdf = new double[keySpace];
    double sum = 0;
    for (int k = 0; k < keySpace; k++) {
      sum += 1 / Math.pow(k + 1, 0.9);
      cdf[k] = sum;
    }
    List<LookupRequest> trace = new ArrayList<>();
    for (int r = 0; r < requests; r++) {
      long[] keys = new long[1 + random.nextInt(maxChunks)];
      for (int i = 0; i < keys.length; i++) {
        int rank = java.util.Arrays.binarySearch(cdf, random.nextDouble() * sum);
        keys[i] = Mix64.mix(rank < 0 ? -rank - 1 : rank);
      }
      trace.add(LookupRequest.of(r * 10L, "m", keys, 256, keys.length * 256L + 100));
    }
    return trace;
  }

  /**
   * Prefix-chained hashes, as docs/design.md#records and LMCache emit them: conversations whose
   * turns grow, so later turns share earlier turns' chunks.
   */
  static List<LookupRequest> chained(long seed, int requests, int conversations) {
    Random random = new Random(seed);
    List<List<Long>> contents = new ArrayList<>();
    for (int c = 0; c < conversations; c++) {
      contents.add(new ArrayList<>());
    }
    List<LookupRequest> trace = new ArrayList<>();
    for (int r = 0; r < requests; r++) {
      List<Long> content = contents.get(random.nextInt(conversations));
      int grow = random.nextInt(4);
      for (int g = 0; g < grow; g++) {
        content.add((long) random.nextInt(3)); // few distinct contents: chaining makes them differ
      }
      int used = random.nextInt(8) == 0 ? random.nextInt(content.size() + 1) : content.size();
      long[] keys = new long[used];
      long chain = 0x5eedL;
      for (int i = 0; i < used; i++) {
        chain = Mix64.mix(chain * 31 + content.get(i));
        keys[i] = chain;
      }
      trace.add(LookupRequest.of(r, "m", keys, 4, used * 4L + 1));
    }
    return trace;
  }

  private static long[] randomKeys(Random random, int n, int keySpace) {
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = random.nextInt(keySpace);
    }
    return keys;
  }
}
