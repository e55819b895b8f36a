package io.prefixlog.benchmarks.kv;

import io.prefixlog.core.kv.KvBatchEncoder;
import io.prefixlog.demo.PrefixCacheWorkload;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

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
    PrefixCacheWorkload workload = new PrefixCacheWorkload(SESSIONS, MAX_SESSION_BLOCKS, CAPACITY);
    for (int b = 0; b < batches; b++) {
      PrefixCacheWorkload.Step step = workload.next(random);
      int runs = (step.stored().size() + MAX_BLOCKS_PER_EVENT - 1) / MAX_BLOCKS_PER_EVENT;
      payloads.add(encode(random, step));
      events += step.evicted().size() + runs;
      blocksStored += step.stored().size();
      blocksRemoved += step.evicted().size();
    }
    payloads.forEach(p -> bytes += p.length);
    resident = workload.resident().size();
  }

  private static byte[] encode(Random random, PrefixCacheWorkload.Step step) {
    List<Long> stored = step.stored();
    List<Long> evicted = step.evicted();
    // The timestamp, then each run's token ids: the order the random draws have always had.
    double timestamp = 1.75e9 + random.nextInt(1_000_000) / 1000.0;
    int runs = (stored.size() + MAX_BLOCKS_PER_EVENT - 1) / MAX_BLOCKS_PER_EVENT;
    KvBatchEncoder batch = KvBatchEncoder.start(timestamp, evicted.size() + runs);
    for (int run = 0; run < runs; run++) {
      int from = run * MAX_BLOCKS_PER_EVENT;
      List<Long> part = stored.subList(from, Math.min(stored.size(), from + MAX_BLOCKS_PER_EVENT));
      int first = step.hit() + from;
      int[] tokens = new int[16 * part.size()];
      for (int t = 0; t < tokens.length; t++) {
        tokens[t] = random.nextInt(150_000);
      }
      batch.blockStored(
          part, step.parentOf(first), tokens, 16, 0, "full_attention", "session-" + step.session());
    }
    for (long hash : evicted) {
      batch.blockRemoved(hash, 0);
    }
    return batch.finish(0);
  }
}
