package io.prefixlog.core.delta;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

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

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private PrefixFingerprint() {}

  /** One hash per checkpoint that fits in the body. */
  public static long[] of(byte[] body) {
    int checkpoints = 0;
    for (long c = FIRST_CHECKPOINT; c <= body.length; c <<= 1) {
      checkpoints++;
    }
    long[] hashes = new long[checkpoints];
    long h = 0x6A09E667F3BCC908L;
    int position = 0;
    int next = FIRST_CHECKPOINT;
    for (int k = 0; k < checkpoints; k++) {
      for (; position < next; position += Long.BYTES) {
        h = Long.rotateLeft((h ^ (long) LONGS.get(body, position)) * 0x9E3779B97F4A7C15L, 31);
      }
      hashes[k] = h >>> 32;
      next <<= 1;
    }
    return hashes;
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
