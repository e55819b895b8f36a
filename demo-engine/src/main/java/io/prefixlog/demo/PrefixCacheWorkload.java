package io.prefixlog.demo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A synthetic vLLM scheduler over a prefix cache, the workload of the demo engine and the KV-index
 * benchmark: sessions whose prompts grow by 1–64 blocks a turn (a session that reaches its maximum
 * starts a new conversation), a cache of {@code capacity} physical blocks with LRU eviction. A
 * request stores the blocks after its cached prefix, including any it recomputes: vLLM does not
 * deduplicate, so a block still cached further on is stored again as a second copy, and each
 * eviction frees one copy. Public for the benchmarks module. Not thread-safe.
 */
public final class PrefixCacheWorkload {
  private final int maxSessionBlocks;
  private final long capacity;
  private final List<List<Long>> sessions = new ArrayList<>();
  private final int[] conversation;
  // hash -> physical copies, in LRU order (access order)
  private final LinkedHashMap<Long, Integer> cache;
  private long physicalBlocks;

  /**
   * One request: its session, its prompt's blocks, how many were cached, what it stored/evicted.
   */
  public record Step(
      int session, List<Long> blocks, int hit, List<Long> stored, List<Long> evicted) {
    public Step {
      blocks = List.copyOf(blocks);
      stored = List.copyOf(stored);
      evicted = List.copyOf(evicted);
    }

    /** The hash of the block before {@code blocks[index]}, {@code null} for the first block. */
    public Long parentOf(int index) {
      return index == 0 ? null : blocks.get(index - 1);
    }
  }

  public PrefixCacheWorkload(int sessions, int maxSessionBlocks, int capacity) {
    if (sessions < 1 || maxSessionBlocks < 1 || capacity < 1) {
      throw new IllegalArgumentException(
          "sessions, maxSessionBlocks and capacity must be at least 1 but were "
              + sessions
              + ", "
              + maxSessionBlocks
              + ", "
              + capacity);
    }
    this.maxSessionBlocks = maxSessionBlocks;
    this.capacity = capacity;
    this.conversation = new int[sessions];
    this.cache = new LinkedHashMap<>(capacity * 2, 0.75f, true);
    for (int s = 0; s < sessions; s++) {
      this.sessions.add(new ArrayList<>());
    }
  }

  /** One scheduler step: one request of a random session (two draws from {@code random}). */
  public Step next(Random random) {
    int s = random.nextInt(sessions.size());
    List<Long> blocks = sessions.get(s);
    if (blocks.size() >= maxSessionBlocks) {
      blocks.clear();
      conversation[s]++;
    }
    int added = 1 + random.nextInt(64);
    for (int i = 0; i < added; i++) {
      long parent =
          blocks.isEmpty() ? s * 1_000_003L + conversation[s] : blocks.get(blocks.size() - 1);
      blocks.add(mix(parent * 31 + blocks.size()));
    }
    // The cached prefix is a hit (vLLM reports nothing for it); the rest is computed and stored.
    int hit = 0;
    while (hit < blocks.size() && cache.get(blocks.get(hit)) != null) {
      hit++;
    }
    List<Long> stored = blocks.subList(hit, blocks.size());
    for (long hash : stored) {
      cache.merge(hash, 1, Integer::sum);
      physicalBlocks++;
    }
    Set<Long> inUse = new HashSet<>(stored);
    List<Long> evicted = new ArrayList<>();
    Iterator<Map.Entry<Long, Integer>> lru = cache.entrySet().iterator();
    while (physicalBlocks > capacity && lru.hasNext()) {
      Map.Entry<Long, Integer> oldest = lru.next();
      if (inUse.contains(oldest.getKey())) {
        continue; // in use by the running request
      }
      while (oldest.getValue() > 0 && physicalBlocks > capacity) {
        oldest.setValue(oldest.getValue() - 1);
        physicalBlocks--;
        evicted.add(oldest.getKey());
      }
      if (oldest.getValue() == 0) {
        lru.remove();
      }
    }
    return new Step(s, blocks, hit, stored, evicted);
  }

  /** The distinct block hashes cached now. */
  public Set<Long> resident() {
    return Set.copyOf(cache.keySet());
  }

  /** SplitMix64's finaliser: well-spread 64-bit hashes, half of them above 2^63, as vLLM's. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
