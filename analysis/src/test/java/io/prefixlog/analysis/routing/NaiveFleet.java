package io.prefixlog.analysis.routing;

import io.prefixlog.analysis.mrc.Mix64;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The reference: the routing what-if done the obvious, slow way. Each replica is an access-ordered
 * {@link LinkedHashMap}; a replica's load is recomputed from the whole list of routed requests;
 * each policy is written out directly from its definition in {@link RoutingPolicy}.
 */
final class NaiveFleet {
  private record Routed(long timeMs, int replica, long units) {}

  private final RoutingPolicy policy;
  private final long windowMs;
  private final List<LinkedHashMap<Long, Boolean>> caches = new ArrayList<>();
  private final List<Routed> routed = new ArrayList<>();
  private final SplittableRandom random;
  private final long[][] stats; // per replica: requests, chunks, prefix hits, units, unit hits
  private long roundRobin;

  NaiveFleet(RoutingPolicy policy, int replicas, long capacity, long windowMs, long seed) {
    this.policy = policy;
    this.windowMs = windowMs;
    this.random = new SplittableRandom(seed);
    this.stats = new long[replicas][5];
    for (int r = 0; r < replicas; r++) {
      caches.add(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
              return size() > capacity;
            }
          });
    }
  }

  int accept(long timeMs, long session, long[] keys, long weight, long seqLen) {
    int n = caches.size();
    int chosen;
    switch (policy) {
      case RANDOM -> chosen = random.nextInt(n);
      case ROUND_ROBIN -> chosen = (int) (roundRobin++ % n);
      case SESSION -> chosen = (int) Long.remainderUnsigned(Mix64.mix(session), n);
      case LEAST_LOADED -> {
        chosen = 0;
        for (int r = 1; r < n; r++) {
          if (load(r, timeMs) < load(chosen, timeMs)) {
            chosen = r;
          }
        }
      }
      case PREFIX -> {
        chosen = 0;
        for (int r = 1; r < n; r++) {
          int run = run(r, keys);
          int bestRun = run(chosen, keys);
          if (run > bestRun || (run == bestRun && load(r, timeMs) < load(chosen, timeMs))) {
            chosen = r;
          }
        }
      }
      case PREFIX_LOAD -> {
        chosen = 0;
        for (int r = 1; r < n; r++) {
          long cost = (keys.length - run(r, keys)) * weight + load(r, timeMs);
          long bestCost = (keys.length - run(chosen, keys)) * weight + load(chosen, timeMs);
          if (cost < bestCost || (cost == bestCost && load(r, timeMs) < load(chosen, timeMs))) {
            chosen = r;
          }
        }
      }
      default -> throw new AssertionError(policy);
    }
    Map<Long, Boolean> cache = caches.get(chosen);
    int leading = 0;
    boolean inRun = true;
    for (long key : keys) {
      boolean hit = cache.get(key) != null;
      if (!hit) {
        cache.put(key, Boolean.TRUE);
      }
      if (hit && inRun) {
        leading++;
      } else {
        inRun = false;
      }
    }
    long[] s = stats[chosen];
    s[0]++;
    s[1] += keys.length;
    s[2] += leading;
    s[3] += seqLen;
    s[4] += leading * weight;
    routed.add(new Routed(timeMs, chosen, seqLen));
    return chosen;
  }

  /** Units routed to {@code replica} after {@code nowMs − windowMs}. */
  private long load(int replica, long nowMs) {
    long sum = 0;
    for (Routed r : routed) {
      if (r.replica() == replica && r.timeMs() > nowMs - windowMs) {
        sum += r.units();
      }
    }
    return sum;
  }

  /** Leading keys cached on {@code replica}; containsKey leaves the access order alone. */
  private int run(int replica, long[] keys) {
    int run = 0;
    while (run < keys.length && caches.get(replica).containsKey(keys[run])) {
      run++;
    }
    return run;
  }

  List<ReplicaStats> stats() {
    List<ReplicaStats> list = new ArrayList<>();
    for (long[] s : stats) {
      list.add(new ReplicaStats(s[0], s[1], s[2], s[3], s[4]));
    }
    return list;
  }
}
