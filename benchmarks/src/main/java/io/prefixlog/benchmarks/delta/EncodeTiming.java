package io.prefixlog.benchmarks.delta;

import io.prefixlog.benchmarks.delta.Workload.Session;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.core.text.Utf8;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Wall time per turn of {@link io.prefixlog.core.delta.TurnEncoder#encode} next to the reference's
 * encode (zstd-jni with the previous body loaded as dictionary, the load included), measured turn
 * by turn in the same loop; the order of the two alternates between repetitions. Also times SHA-256
 * of the body on its own, since the encoder hashes every body.
 */
final class EncodeTiming {
  /** Body sizes of the "30 KB" bucket, bytes inclusive. */
  static final int BUCKET_MIN = 25_000;

  static final int BUCKET_MAX = 35_000;

  /** Keeps the compressed sizes and digests observable so that no work is optimised away. */
  static volatile long blackhole;

  private EncodeTiming() {}

  /**
   * Nanoseconds per turn for every measured repetition: {@code encoder[rep][turn]}, {@code
   * reference[rep][turn]}, {@code sha256[rep][turn]}; turns in workload order.
   */
  record Samples(long[][] encoder, long[][] reference, long[][] sha256, int[] bodyLen) {}

  static Samples measure(Workload workload, SessionEncoder encoder, int warmups, int repetitions) {
    int turns = workload.turns();
    int[] bodyLen = new int[turns];
    boolean[] utf8 = new boolean[turns];
    int t = 0;
    for (Session session : workload.sessions()) {
      for (byte[] body : session.bodies()) {
        bodyLen[t] = body.length;
        utf8[t++] = Utf8.isStrict(body);
      }
    }
    long[][] enc = new long[repetitions][turns];
    long[][] ref = new long[repetitions][turns];
    long[][] sha = new long[repetitions][turns];
    try (PatchFrom reference = new PatchFrom()) {
      for (int r = 0; r < warmups + repetitions; r++) {
        int slot = r - warmups;
        boolean encoderFirst = r % 2 == 0;
        long[] e = slot >= 0 ? enc[slot] : new long[turns];
        long[] z = slot >= 0 ? ref[slot] : new long[turns];
        long[] h = slot >= 0 ? sha[slot] : new long[turns];
        once(workload, encoder, reference, utf8, encoderFirst, e, z, h);
      }
    }
    return new Samples(enc, ref, sha, bodyLen);
  }

  private static void once(
      Workload workload,
      SessionEncoder encoder,
      PatchFrom reference,
      boolean[] utf8,
      boolean encoderFirst,
      long[] encNs,
      long[] refNs,
      long[] shaNs) {
    int t = 0;
    long sink = 0;
    for (Session session : workload.sessions()) {
      SessionState state = SessionState.newChain("0a1b2c3d");
      Map<Long, byte[]> stored = new HashMap<>();
      byte[] previous = null;
      for (byte[] body : session.bodies()) {
        EncodedTurn turn;
        long t0;
        long t1;
        long t2;
        if (encoderFirst) {
          t0 = System.nanoTime();
          turn = encoder.encode(state, body, utf8[t], stored::get, t);
          t1 = System.nanoTime();
          sink += reference.size(previous, body);
          t2 = System.nanoTime();
          encNs[t] = t1 - t0;
          refNs[t] = t2 - t1;
        } else {
          t0 = System.nanoTime();
          sink += reference.size(previous, body);
          t1 = System.nanoTime();
          turn = encoder.encode(state, body, utf8[t], stored::get, t);
          t2 = System.nanoTime();
          refNs[t] = t1 - t0;
          encNs[t] = t2 - t1;
        }
        long h0 = System.nanoTime();
        sink += Sha256.hex(body).length();
        shaNs[t] = System.nanoTime() - h0;
        state = turn.newState();
        if (turn.storeBody()) {
          stored.put(turn.seq(), body);
        }
        turn.evictedSeqs().forEach(stored::remove);
        previous = body;
        t++;
      }
    }
    blackhole = sink;
  }

  /**
   * Median over repetitions of a per-repetition percentile, over the turns {@code include} accepts.
   *
   * @return microseconds, or NaN when no turn is included
   */
  static double medianOfPercentile(long[][] perRep, double percentile, TurnFilter include) {
    List<Double> values = new ArrayList<>();
    for (long[] rep : perRep) {
      long[] picked = new long[rep.length];
      int n = 0;
      for (int i = 0; i < rep.length; i++) {
        if (include.test(i)) {
          picked[n++] = rep[i];
        }
      }
      if (n == 0) {
        return Double.NaN;
      }
      long[] sorted = Arrays.copyOf(picked, n);
      Arrays.sort(sorted);
      values.add(percentile(sorted, percentile) / 1_000.0);
    }
    values.sort(null);
    int m = values.size();
    return m % 2 == 1 ? values.get(m / 2) : (values.get(m / 2 - 1) + values.get(m / 2)) / 2;
  }

  /** Nearest-rank percentile of sorted values. */
  static long percentile(long[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  @FunctionalInterface
  interface TurnFilter {
    boolean test(int turn);
  }
}
