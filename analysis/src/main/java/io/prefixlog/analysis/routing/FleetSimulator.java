package io.prefixlog.analysis.routing;

import io.prefixlog.analysis.mrc.Mix64;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Replays chunk-hash lookups, in time order, over N replicas of C chunks each under one {@link
 * RoutingPolicy}, and counts what each replica served.
 *
 * <p>Each replica is an LRU cache of C chunks with the semantics of the single-cache analysis
 * ({@link io.prefixlog.analysis.mrc.NaiveLru}): the request's chunks are accessed in order on the
 * replica it was routed to, hit or not, and its prefix hits are the leading run of cached chunks.
 * The router sees the replicas' caches exactly as they are (a precise index, as llm-d's precise
 * scorer and Dynamo's router build from KV events), and the load of each replica: the units (tokens
 * or bytes) of the requests routed to it within the last {@code loadWindowMs}.
 *
 * <p>Cost per request: O(chunks) for the access, plus, for the prefix policies, O(N × the matched
 * prefix) to find each replica's cached prefix. Not thread-safe.
 */
public final class FleetSimulator {
  /**
   * Capacities are capped here: a replica this large holds more distinct chunks than a trace that
   * fits in memory has, so a larger capacity would behave identically.
   */
  public static final long MAX_CHUNKS_PER_REPLICA = 1L << 29;

  private final RoutingPolicy policy;
  private final long capacityChunks;
  private final ChunkLru[] caches;
  private final RecentLoad load;
  private final SplittableRandom random;
  private final long[] requests;
  private final long[] chunkLookups;
  private final long[] prefixHits;
  private final long[] units;
  private final long[] unitHits;
  private final int[] prefixScratch;
  private long nextRoundRobin;
  private long lastTimestampMs = Long.MIN_VALUE;

  /**
   * @param policy how to route
   * @param replicas N, at least 1
   * @param capacityChunks C, chunks each replica holds, at least 0
   * @param loadWindowMs how long a routed request counts toward its replica's load, at least 0
   * @param seed the random policy's seed
   */
  public FleetSimulator(
      RoutingPolicy policy, int replicas, long capacityChunks, long loadWindowMs, long seed) {
    this.policy = Objects.requireNonNull(policy, "policy");
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be >= 1, got " + replicas);
    }
    if (capacityChunks < 0) {
      throw new IllegalArgumentException("capacityChunks must be >= 0, got " + capacityChunks);
    }
    this.capacityChunks = capacityChunks;
    this.caches = new ChunkLru[replicas];
    for (int r = 0; r < replicas; r++) {
      caches[r] = new ChunkLru((int) Math.min(capacityChunks, MAX_CHUNKS_PER_REPLICA));
    }
    this.load = new RecentLoad(replicas, loadWindowMs);
    this.random = new SplittableRandom(seed);
    this.requests = new long[replicas];
    this.chunkLookups = new long[replicas];
    this.prefixHits = new long[replicas];
    this.units = new long[replicas];
    this.unitHits = new long[replicas];
    this.prefixScratch = new int[replicas];
  }

  public RoutingPolicy policy() {
    return policy;
  }

  /**
   * Routes one request and accesses its chunks on the chosen replica.
   *
   * @param timestampMs arrival time; never earlier than the previous request's
   * @param sessionKey the session's 64-bit key (session affinity hashes it)
   * @param chunkKeys the request's chunk keys are {@code chunkKeys[from, to)}, in prompt order
   * @param chunkWeight units per full chunk
   * @param seqLen the request's units, partial last chunk included
   * @return the replica chosen
   */
  public int accept(
      long timestampMs,
      long sessionKey,
      long[] chunkKeys,
      int from,
      int to,
      long chunkWeight,
      long seqLen) {
    if (timestampMs < lastTimestampMs) {
      throw new IllegalArgumentException(
          "requests must arrive in time order: "
              + timestampMs
              + " ms after "
              + lastTimestampMs
              + " ms");
    }
    if (from < 0 || to < from || to > chunkKeys.length) {
      throw new IllegalArgumentException(
          "chunk range [" + from + ", " + to + ") is outside " + chunkKeys.length + " keys");
    }
    if (chunkWeight < 0 || seqLen < (to - from) * chunkWeight) {
      throw new IllegalArgumentException(
          "seqLen " + seqLen + " is less than " + (to - from) + " chunks of " + chunkWeight);
    }
    lastTimestampMs = timestampMs;
    load.advanceTo(timestampMs);
    int replica = choose(sessionKey, chunkKeys, from, to, chunkWeight);
    int leading = caches[replica].access(chunkKeys, from, to);
    requests[replica]++;
    chunkLookups[replica] += to - from;
    prefixHits[replica] += leading;
    units[replica] += seqLen;
    unitHits[replica] += leading * chunkWeight;
    load.add(timestampMs, replica, seqLen);
    return replica;
  }

  private int choose(long sessionKey, long[] keys, int from, int to, long chunkWeight) {
    int n = caches.length;
    return switch (policy) {
      case RANDOM -> random.nextInt(n);
      case ROUND_ROBIN -> (int) (nextRoundRobin++ % n);
      case SESSION -> (int) Long.remainderUnsigned(Mix64.mix(sessionKey), n);
      case LEAST_LOADED -> leastLoaded();
      case PREFIX -> longestPrefix(keys, from, to);
      case PREFIX_LOAD -> leastCost(keys, from, to, chunkWeight);
    };
  }

  private int leastLoaded() {
    int best = 0;
    for (int r = 1; r < caches.length; r++) {
      if (load.of(r) < load.of(best)) {
        best = r;
      }
    }
    return best;
  }

  private int longestPrefix(long[] keys, int from, int to) {
    int best = 0;
    int bestRun = -1;
    for (int r = 0; r < caches.length; r++) {
      int run = caches[r].leadingRun(keys, from, to);
      if (run > bestRun || (run == bestRun && load.of(r) < load.of(best))) {
        best = r;
        bestRun = run;
      }
    }
    return best;
  }

  private int leastCost(long[] keys, int from, int to, long chunkWeight) {
    int n = caches.length;
    for (int r = 0; r < n; r++) {
      prefixScratch[r] = caches[r].leadingRun(keys, from, to);
    }
    int best = 0;
    long bestCost = Long.MAX_VALUE;
    for (int r = 0; r < n; r++) {
      // The partial last chunk is prefilled everywhere, so it is left out of the comparison.
      long cost = (to - from - prefixScratch[r]) * chunkWeight + load.of(r);
      if (cost < bestCost || (cost == bestCost && load.of(r) < load.of(best))) {
        best = r;
        bestCost = cost;
      }
    }
    return best;
  }

  /** What each replica served so far. */
  public FleetResult result() {
    List<ReplicaStats> stats = new ArrayList<>(caches.length);
    for (int r = 0; r < caches.length; r++) {
      stats.add(
          new ReplicaStats(requests[r], chunkLookups[r], prefixHits[r], units[r], unitHits[r]));
    }
    return new FleetResult(policy, capacityChunks, stats);
  }
}
