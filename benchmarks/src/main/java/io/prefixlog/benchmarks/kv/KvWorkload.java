package io.prefixlog.benchmarks.kv;

import io.prefixlog.core.kv.KvBatchEncoder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * vLLM-like KV-event batches, as the engine's publisher encodes them (vLLM 0.26+: positional outer
 * batch, map events, uint64 hashes): per scheduler step one request of one of 32 sessions whose
 * prompts grow by 1–64 blocks of 16 tokens (token ids below 150,000) per turn, up to 512 blocks;
 * the blocks after the cached prefix are stored (BlockStored events of at most 64 blocks, with
 * parent hash, token ids, block size, medium, group, spec kind, extra keys, session id; a block
 * recomputed while still cached is a second copy), and a prefix cache of {@value #CAPACITY} blocks
 * evicts its least recently used copies, one BlockRemoved per block, as vLLM does. Seeded: the same
 * batches every run.
 */
final class KvWorkload {
  static final int CAPACITY = 20_000;
  private static final int SESSIONS = 64;
  private static final int MAX_SESSION_BLOCKS = 512;

  /** A longer stored run is split, as chunked prefill spreads a long prompt over steps. */
  static final int MAX_BLOCKS_PER_EVENT = 64;

  final List<byte[]> payloads = new ArrayList<>();
  long events;
  long blocksStored;
  long blocksRemoved;
  long bytes;

  /** Distinct blocks cached after the last batch: the entries the index must end with. */
  long resident;

  KvWorkload(int batches, long seed) {
    Random random = new Random(seed);
    List<List<Long>> sessions = new ArrayList<>();
    for (int s = 0; s < SESSIONS; s++) {
      sessions.add(new ArrayList<>());
    }
    int[] conversation = new int[SESSIONS];
    // hash -> physical copies, in LRU order: vLLM does not deduplicate, so a block recomputed
    // while a copy is still cached is a second copy, and each eviction frees one copy
    LinkedHashMap<Long, Integer> cache = new LinkedHashMap<>(CAPACITY * 2, 0.75f, true);
    long physical = 0;
    for (int b = 0; b < batches; b++) {
      int s = random.nextInt(SESSIONS);
      List<Long> blocks = sessions.get(s);
      if (blocks.size() >= MAX_SESSION_BLOCKS) {
        blocks.clear();
        conversation[s]++;
      }
      int added = 1 + random.nextInt(64);
      for (int i = 0; i < added; i++) {
        long parent =
            blocks.isEmpty() ? s * 1_000_003L + conversation[s] : blocks.get(blocks.size() - 1);
        blocks.add(mix(parent * 31 + blocks.size()));
      }
      int hit = 0;
      while (hit < blocks.size() && cache.get(blocks.get(hit)) != null) {
        hit++;
      }
      List<Long> stored = List.copyOf(blocks.subList(hit, blocks.size()));
      for (long hash : stored) {
        cache.merge(hash, 1, Integer::sum);
        physical++;
      }
      Set<Long> inUse = new HashSet<>(stored);
      List<Long> evicted = new ArrayList<>();
      Iterator<Map.Entry<Long, Integer>> lru = cache.entrySet().iterator();
      while (physical > CAPACITY && lru.hasNext()) {
        Map.Entry<Long, Integer> oldest = lru.next();
        if (inUse.contains(oldest.getKey())) {
          continue;
        }
        while (oldest.getValue() > 0 && physical > CAPACITY) {
          oldest.setValue(oldest.getValue() - 1);
          physical--;
          evicted.add(oldest.getKey());
        }
        if (oldest.getValue() == 0) {
          lru.remove();
        }
      }
      int runs = (stored.size() + MAX_BLOCKS_PER_EVENT - 1) / MAX_BLOCKS_PER_EVENT;
      payloads.add(encode(random, s, blocks, hit, stored, evicted));
      events += evicted.size() + runs;
      blocksStored += stored.size();
      blocksRemoved += evicted.size();
    }
    payloads.forEach(p -> bytes += p.length);
    resident = cache.size();
  }

  private static byte[] encode(
      Random random,
      int session,
      List<Long> blocks,
      int hit,
      List<Long> stored,
      List<Long> evicted) {
    // The timestamp, then each run's token ids: the order the random draws have always had.
    double timestamp = 1.75e9 + random.nextInt(1_000_000) / 1000.0;
    int runs = (stored.size() + MAX_BLOCKS_PER_EVENT - 1) / MAX_BLOCKS_PER_EVENT;
    KvBatchEncoder batch = KvBatchEncoder.start(timestamp, evicted.size() + runs);
    for (int run = 0; run < runs; run++) {
      int from = run * MAX_BLOCKS_PER_EVENT;
      List<Long> part = stored.subList(from, Math.min(stored.size(), from + MAX_BLOCKS_PER_EVENT));
      int first = hit + from;
      int[] tokens = new int[16 * part.size()];
      for (int t = 0; t < tokens.length; t++) {
        tokens[t] = random.nextInt(150_000);
      }
      batch.blockStored(
          part,
          first == 0 ? null : blocks.get(first - 1),
          tokens,
          16,
          0,
          "full_attention",
          "session-" + session);
    }
    for (long hash : evicted) {
      batch.blockRemoved(hash, 0);
    }
    return batch.finish(0);
  }

  /** SplitMix64's finaliser: half of the hashes are above 2^63, as vLLM's uint64 hashes. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
