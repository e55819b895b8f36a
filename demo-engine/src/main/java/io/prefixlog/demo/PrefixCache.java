package io.prefixlog.demo;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded LRU set of prefix-chained chunk hashes: what the demo engine "holds in its KV cache". A
 * lookup counts the leading hashes present (a chained hash covers every chunk before it, so the run
 * stops at the first miss, as vLLM's prefix cache does), then stores all of them.
 */
final class PrefixCache {
  private final LinkedHashMap<Long, Boolean> chunks;

  PrefixCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
    }
    this.chunks =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The number of leading hashes already cached; afterwards all of them are cached. */
  synchronized int lookupAndStore(long[] hashes) {
    int hits = 0;
    while (hits < hashes.length && chunks.get(hashes[hits]) != null) {
      hits++;
    }
    for (int i = hits; i < hashes.length; i++) {
      chunks.put(hashes[i], Boolean.TRUE);
    }
    return hits;
  }

  synchronized int size() {
    return chunks.size();
  }
}
