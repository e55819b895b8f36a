package io.prefixlog.analysis.routing;

import java.util.Arrays;

/**
 * Units routed to each replica within the last {@code windowMs}: a request routed at time t counts
 * toward its replica's load for every request arriving before {@code t + windowMs}. One queue of
 * (time, replica, units) for all replicas, since time only moves forward: each request is added
 * once and expired once.
 */
final class RecentLoad {
  private final long windowMs;
  private final long[] load;
  private long[] times = new long[64];
  private int[] replicas = new int[64];
  private long[] units = new long[64];
  private int first; // queue head index
  private int count;

  RecentLoad(int replicas, long windowMs) {
    if (windowMs < 0) {
      throw new IllegalArgumentException("windowMs must be >= 0, got " + windowMs);
    }
    this.windowMs = windowMs;
    this.load = new long[replicas];
  }

  /** Drops what was routed at or before {@code nowMs − windowMs}. */
  void advanceTo(long nowMs) {
    long cutoff = nowMs - windowMs;
    int mask = times.length - 1;
    while (count > 0 && times[first] <= cutoff) {
      load[replicas[first]] -= units[first];
      first = (first + 1) & mask;
      count--;
    }
  }

  void add(long nowMs, int replica, long routedUnits) {
    if (windowMs == 0) {
      return; // a zero window holds nothing
    }
    if (count == times.length) {
      grow();
    }
    int at = (first + count) & (times.length - 1);
    times[at] = nowMs;
    replicas[at] = replica;
    units[at] = routedUnits;
    count++;
    load[replica] += routedUnits;
  }

  long of(int replica) {
    return load[replica];
  }

  private void grow() {
    int n = times.length;
    long[] t = new long[n * 2];
    int[] r = new int[n * 2];
    long[] u = new long[n * 2];
    for (int i = 0; i < count; i++) {
      int from = (first + i) & (n - 1);
      t[i] = times[from];
      r[i] = replicas[from];
      u[i] = units[from];
    }
    times = t;
    replicas = r;
    units = u;
    first = 0;
  }

  @Override
  public String toString() {
    return "RecentLoad[windowMs=" + windowMs + ", load=" + Arrays.toString(load) + "]";
  }
}
