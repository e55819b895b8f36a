package io.prefixlog.analysis.routing;

import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * One policy's replay over the fleet.
 *
 * @param policy how requests were routed
 * @param capacityChunks each replica's capacity
 * @param replicas what each replica served, by index
 */
public record FleetResult(RoutingPolicy policy, long capacityChunks, List<ReplicaStats> replicas) {
  public FleetResult {
    Objects.requireNonNull(policy, "policy");
    replicas = List.copyOf(replicas);
    if (replicas.isEmpty()) {
      throw new IllegalArgumentException("a fleet has at least one replica");
    }
  }

  /** The fleet as one: every replica's figures summed. */
  public ReplicaStats total() {
    ReplicaStats sum = new ReplicaStats(0, 0, 0, 0, 0);
    for (ReplicaStats replica : replicas) {
      sum = sum.plus(replica);
    }
    return sum;
  }

  /** The busiest replica's requests over the mean: 1 is perfect balance, N all on one. */
  public double requestImbalance() {
    return imbalance(ReplicaStats::requests);
  }

  /** The busiest replica's chunk lookups over the mean. */
  public double chunkImbalance() {
    return imbalance(ReplicaStats::chunkLookups);
  }

  private double imbalance(ToLongFunction<ReplicaStats> figure) {
    long max = 0;
    long sum = 0;
    for (ReplicaStats replica : replicas) {
      long value = figure.applyAsLong(replica);
      max = Math.max(max, value);
      sum += value;
    }
    return sum == 0 ? 1 : max * (double) replicas.size() / sum;
  }
}
