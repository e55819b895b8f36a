package io.prefixlog.analysis.routing;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a request picks its replica. Load is always the units (tokens or bytes) of the requests
 * routed to a replica within the last load window ({@link FleetSimulator}): the replay has no
 * response times, so requests in flight cannot be counted, and recent work routed is the closest
 * honest stand-in.
 */
public enum RoutingPolicy {
  /** A uniformly random replica, from a seeded generator: the same seed gives the same routing. */
  RANDOM("random"),
  /** Replica 0, 1, …, N−1, 0, … in arrival order. */
  ROUND_ROBIN("round-robin"),
  /** A hash of the session key modulo N: every request of a session lands on one replica. */
  SESSION("session"),
  /** The replica with the least load; ties go to the lowest index. */
  LEAST_LOADED("least-loaded"),
  /**
   * The replica holding the longest run of the request's leading chunks (llm-d's precise
   * prefix-cache scorer, without its other scorers); ties go to the least load, then the lowest
   * index.
   */
  PREFIX("prefix"),
  /**
   * The replica of least cost = units still to prefill there (chunks beyond its cached prefix ×
   * chunk size, plus the partial last chunk) + its load: Dynamo's KV router cost (prefill blocks ×
   * overlap weight + active blocks) with weight 1 and the window load in place of active blocks.
   * Ties go to the least load, then the lowest index.
   */
  PREFIX_LOAD("prefix-load");

  private final String wireName;

  RoutingPolicy(String wireName) {
    this.wireName = wireName;
  }

  /** The name on the command line and in reports. */
  public String wireName() {
    return wireName;
  }

  /**
   * The policy of a name.
   *
   * @throws IllegalArgumentException naming the known policies
   */
  public static RoutingPolicy of(String name) {
    String wanted = name.trim().toLowerCase(Locale.ROOT);
    for (RoutingPolicy policy : values()) {
      if (policy.wireName.equals(wanted)) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "unknown routing policy '" + name + "', expected one of " + names());
  }

  /** Every policy's name, comma-separated. */
  public static String names() {
    return Arrays.stream(values()).map(RoutingPolicy::wireName).collect(Collectors.joining(", "));
  }
}
