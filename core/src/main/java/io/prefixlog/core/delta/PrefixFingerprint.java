package io.prefixlog.core.delta;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * Hashes of a body's prefixes at doubling lengths (64, 128, 256, … bytes), so that the base that
 * shares the longest prefix with a new body can be estimated from stored fingerprints without
 * loading any stored body. Equal hashes at a checkpoint mean (with 32-bit certainty) equal bytes up
 * to it.
 *
 * <p>Each hash keeps 32 bits: the fingerprints are written to the state changelog on every request
 * (four bases of about ten checkpoints), and a collision only misranks a candidate, whose delta is
 * then computed and checked against the real bytes anyway.
 */
public final class PrefixFingerprint {
  /** The first checkpoint, in bytes. Later ones double. */
  public static final int FIRST_CHECKPOINT = 64;

  private static final long SEED = 0x6A09E667F3BCC908L;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private PrefixFingerprint() {}

  /** One hash per checkpoint that fits in the body. */
  public static long[] of(byte[] body) {
    return fingerprint(states(body));
  }

  /**
   * The hash's whole 64-bit state at each checkpoint that fits in the body; the fingerprint keeps
   * the upper half of each ({@link #fingerprint}). Kept in memory with a body (never stored), they
   * let the fingerprint of a body that repeats it be taken up where the two part ({@link
   * #statesFrom}).
   */
  public static long[] states(byte[] body) {
    return statesFrom(body, null, 0);
  }

  /**
   * {@link #states} of {@code body}, whose first {@code shared} bytes are those of the body that
   * {@code known} are the states of: the states at checkpoints within those bytes are taken as they
   * are, and the hash goes on from the last of them. A turn repeats its base up to where it adds to
   * it, so its fingerprint costs what it adds instead of a pass over the body.
   *
   * @param known the states of a body whose first {@code shared} bytes are those of {@code body},
   *     or null
   */
  public static long[] statesFrom(byte[] body, long[] known, int shared) {
    int checkpoints = 0;
    for (long c = FIRST_CHECKPOINT; c <= body.length; c <<= 1) {
      checkpoints++;
    }
    long[] states = new long[checkpoints];
    int k = 0;
    long h = SEED;
    int position = 0;
    if (known != null) {
      while (k < checkpoints && k < known.length && (long) FIRST_CHECKPOINT << k <= shared) {
        states[k] = known[k];
        k++;
      }
      if (k > 0) {
        h = states[k - 1];
        position = FIRST_CHECKPOINT << (k - 1);
      }
    }
    for (; k < checkpoints; k++) {
      int next = FIRST_CHECKPOINT << k;
      for (; position < next; position += Long.BYTES) {
        h = Long.rotateLeft((h ^ (long) LONGS.get(body, position)) * 0x9E3779B97F4A7C15L, 31);
      }
      states[k] = h;
    }
    return states;
  }

  /** The fingerprint of the body whose {@link #states} these are. */
  public static long[] fingerprint(long[] states) {
    long[] hashes = new long[states.length];
    for (int k = 0; k < states.length; k++) {
      hashes[k] = states[k] >>> 32;
    }
    return hashes;
  }

  /**
   * A body with its {@link #states}, as a cache holds them.
   *
   * @param body the bytes, which must not change
   * @param states their states, which must not change
   */
  public record Known(byte[] body, long[] states) {
    public Known {
      Objects.requireNonNull(body, "body");
      Objects.requireNonNull(states, "states");
    }
  }

  /**
   * A lower bound of the bytes two bodies share from the start: the largest checkpoint at which
   * their fingerprints agree, 0 when even the first differs.
   */
  public static long sharedPrefixAtLeast(long[] a, long[] b) {
    int common = Arrays.mismatch(a, b);
    int agreeing = common < 0 ? a.length : common;
    return agreeing == 0 ? 0 : (long) FIRST_CHECKPOINT << (agreeing - 1);
  }
}
