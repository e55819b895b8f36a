package io.prefixlog.core.delta;

import io.prefixlog.core.text.CodePointIndex;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.delta.DeltaOp;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encodes a target body as copy/insert ops against a base body. Both must be well-formed UTF-8.
 *
 * <p>The common case of a session is "the base, plus new messages before the closing brackets": the
 * shared prefix and suffix are found with vectorised {@link Arrays#mismatch}. What lies between
 * them in the target (the new messages, or an edit and what follows it) is matched against the
 * whole base, shared prefix included: an agent's new turn repeats text from anywhere in its history
 * (a file shown again after an edit, an edit call quoting earlier code, a compaction that keeps the
 * rest of the history), and that text costs a copy op, not its bytes again. The base is indexed by
 * a hash of every {@value #WINDOW}-byte window at a stride of {@code minMatch - WINDOW} bytes (one
 * entry per 48 bytes by default, so the index costs a small fraction of a pass over the base), and
 * the target's middle is scanned for matches that are then extended in both directions. So an edit
 * costs its own bytes, not the rest of the body. Every match is trimmed to code point boundaries:
 * ops count code points.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class DeltaEncoder {
  /** Bytes hashed per index entry. */
  static final int WINDOW = 16;

  /**
   * After {@code 2^SKIP_SHIFT} positions without a match, the scan steps two bytes at a time, after
   * twice as many three, and so on: new text costs a fraction of a probe per byte.
   */
  private static final int SKIP_SHIFT = 6;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int minMatch;

  /**
   * Distance between indexed base positions: {@code minMatch - WINDOW}, so that every match of
   * {@code minMatch} bytes contains a whole indexed window and is found, with as few entries as
   * that allows (a sparser index is cheaper to build and yields fewer, longer ops).
   */
  private final int stride;

  /** The smallest {@code minMatch} an encoder accepts. */
  public static final int MIN_MATCH_FLOOR = WINDOW + 1;

  /**
   * @param minMatch the shortest match worth a copy op, in bytes; a copy op costs about 30 bytes of
   *     JSON, so shorter matches are cheaper as inserts. At least {@link #MIN_MATCH_FLOOR}.
   */
  public DeltaEncoder(int minMatch) {
    if (minMatch < MIN_MATCH_FLOOR) {
      throw new IllegalArgumentException(
          "minMatch must be at least " + MIN_MATCH_FLOOR + " bytes, got " + minMatch);
    }
    this.minMatch = minMatch;
    this.stride = minMatch - WINDOW;
  }

  /** The encoder with the default minimum match of 64 bytes. */
  public static DeltaEncoder withDefaults() {
    return new DeltaEncoder(EncoderSettings.DEFAULTS.minMatchBytes());
  }

  public EncodedDelta encode(byte[] base, byte[] target) {
    return encode(base, null, target);
  }

  /**
   * The ops from {@code base} to {@code target}, with the target's code-point index.
   *
   * @param baseIndex the base's code-point index, or null to build it
   */
  public EncodedDelta encode(byte[] base, CodePointIndex baseIndex, byte[] target) {
    OpsBuilder ops = new OpsBuilder(base, baseIndex, target);
    int prefix = commonPrefix(base, target);
    int suffix = commonSuffix(base, target, prefix);
    int targetMiddleEnd = target.length - suffix;
    int baseMiddleEnd = base.length - suffix;

    ops.copy(0, 0, prefix);
    if (prefix < targetMiddleEnd) {
      // The target's middle is matched against all of the base: the shared prefix holds what an
      // agent shows or quotes again, and the common suffix, taken greedily, may hold text that the
      // middle repeats (the tail of the last question, which the new turn's question shares).
      if (base.length >= minMatch && targetMiddleEnd - prefix >= minMatch) {
        matchMiddle(base, 0, base.length, target, prefix, targetMiddleEnd, ops);
      } else {
        ops.insert(prefix, targetMiddleEnd);
      }
    }
    ops.copy(targetMiddleEnd, baseMiddleEnd, suffix);
    // The prefix is the same bytes in both: the base's index counts it, and is the target's there.
    CodePointIndex known = ops.baseIndex();
    return ops.build(known.codePointAt(prefix), CodePointIndex.extend(known, target, prefix));
  }

  private static int commonPrefix(byte[] base, byte[] target) {
    int p = Arrays.mismatch(base, target);
    if (p < 0) {
      return base.length; // identical
    }
    while (p > 0 && isInside(target, p)) {
      p--;
    }
    return p;
  }

  private static int commonSuffix(byte[] base, byte[] target, int prefix) {
    int limit = Math.min(base.length, target.length) - prefix;
    int s = 0;
    while (s < limit && base[base.length - 1 - s] == target[target.length - 1 - s]) {
      s++;
    }
    while (s > 0 && isInside(target, target.length - s)) {
      s--;
    }
    return s;
  }

  /** True when {@code position} falls inside a multi-byte sequence rather than on a boundary. */
  private static boolean isInside(byte[] bytes, int position) {
    return position < bytes.length && Utf8.isContinuation(bytes[position]);
  }

  private void matchMiddle(
      byte[] base,
      int baseStart,
      int baseEnd,
      byte[] target,
      int targetStart,
      int targetEnd,
      OpsBuilder ops) {
    WindowIndex index = WindowIndex.build(base, baseStart, baseEnd, stride);
    int pending = targetStart; // start of target bytes not yet covered by an op
    int offset = 0; // base position minus target position of the last copy
    int misses = 0; // positions probed since the last match
    int i = targetStart;
    while (i + WINDOW <= targetEnd) {
      // The last copy's alignment first: after an in-place edit (a timestamp) the rest of the
      // body continues at the same offset, and repeated text must not pull the match elsewhere.
      int j = i + offset;
      int length = 0;
      if (j >= baseStart && j + WINDOW <= baseEnd && sameWindow(base, j, target, i)) {
        length = forwardMatch(base, j, baseEnd, target, i, targetEnd);
      } else {
        long found = index.longestMatch(base, baseEnd, target, i, targetEnd);
        if (found >= 0) {
          j = (int) (found >>> 32);
          length = (int) found;
        }
      }
      if (length < WINDOW) {
        // Through text the base does not hold, probe ever more sparsely (lz4's acceleration): a
        // later match is still found, and extended back over what was skipped.
        i += 1 + (misses++ >>> SKIP_SHIFT);
        continue;
      }
      misses = 0;
      int back = 0;
      while (i - back > pending
          && j - back > baseStart
          && target[i - back - 1] == base[j - back - 1]) {
        back++;
      }
      int start = i - back;
      int baseFrom = j - back;
      int end = i + length;
      while (start < end && Utf8.isContinuation(target[start])) {
        start++;
        baseFrom++;
      }
      while (end > start && isInside(target, end)) {
        end--;
      }
      if (end - start < minMatch) {
        i++;
        continue;
      }
      ops.insert(pending, start);
      ops.copy(start, baseFrom, end - start);
      offset = baseFrom - start;
      pending = end;
      i = end;
    }
    ops.insert(pending, targetEnd);
  }

  private static boolean sameWindow(byte[] base, int j, byte[] target, int i) {
    return (long) LONGS.get(base, j) == (long) LONGS.get(target, i)
        && (long) LONGS.get(base, j + Long.BYTES) == (long) LONGS.get(target, i + Long.BYTES);
  }

  private static int forwardMatch(
      byte[] base, int j, int baseEnd, byte[] target, int i, int targetEnd) {
    int mismatch = Arrays.mismatch(target, i, targetEnd, base, j, baseEnd);
    return mismatch < 0 ? Math.min(targetEnd - i, baseEnd - j) : mismatch;
  }

  /**
   * Open-addressing table from window hash to base positions. Equal windows (repeated text) get one
   * slot each, so a lookup can pick the longest of several candidates.
   */
  private static final class WindowIndex {
    /** Candidates examined per lookup: bounds the cost of highly repetitive bases. */
    private static final int MAX_PROBES = 8;

    private final int[] slots; // base position + 1; 0 = empty
    private final int mask;

    private WindowIndex(int[] slots) {
      this.slots = slots;
      this.mask = slots.length - 1;
    }

    static WindowIndex build(byte[] base, int start, int end, int stride) {
      int entries = Math.max(1, (end - start - WINDOW) / stride + 1);
      int size = Integer.highestOneBit(entries * 2 - 1) << 1;
      WindowIndex index = new WindowIndex(new int[Math.max(16, size)]);
      for (int j = start; j + WINDOW <= end; j += stride) {
        int slot = hash(base, j) & index.mask;
        int probes = 0;
        while (index.slots[slot] != 0 && probes < MAX_PROBES) {
          slot = (slot + 1) & index.mask;
          probes++;
        }
        // A window repeated more often than lookups examine is not indexed again: this keeps
        // building linear on repetitive bases (long runs of spaces, repeated tool output).
        if (index.slots[slot] == 0) {
          index.slots[slot] = j + 1;
        }
      }
      return index;
    }

    /**
     * The base position of the longest match of the target at {@code i} among the candidates with
     * the same window, packed as {@code position << 32 | length}, or -1 when there is none.
     */
    long longestMatch(byte[] base, int baseEnd, byte[] target, int i, int targetEnd) {
      long a = (long) LONGS.get(target, i);
      long b = (long) LONGS.get(target, i + Long.BYTES);
      int slot = mix(a, b) & mask;
      long best = -1;
      int bestLength = 0;
      for (int probes = 0; slots[slot] != 0 && probes < MAX_PROBES; probes++) {
        int j = slots[slot] - 1;
        if ((long) LONGS.get(base, j) == a && (long) LONGS.get(base, j + Long.BYTES) == b) {
          int length = forwardMatch(base, j, baseEnd, target, i, targetEnd);
          if (length > bestLength) {
            bestLength = length;
            best = ((long) j << 32) | length;
          }
        }
        slot = (slot + 1) & mask;
      }
      return best;
    }

    private static int hash(byte[] bytes, int position) {
      return mix((long) LONGS.get(bytes, position), (long) LONGS.get(bytes, position + Long.BYTES));
    }

    private static int mix(long a, long b) {
      long h = a * 0x9E3779B97F4A7C15L ^ Long.rotateLeft(b * 0xC2B2AE3D27D4EB4FL, 29);
      return (int) (h ^ (h >>> 32));
    }
  }

  /** Collects byte-range ops in target order and converts them to code-point ops. */
  private static final class OpsBuilder {
    /**
     * Copies up to this long are counted byte by byte; longer ones through the base's index, whose
     * lookups count up to a block (4 KiB) each.
     */
    private static final int COUNTED_COPY_BYTES = 8192;

    private final byte[] base;
    private final byte[] target;
    private final List<DeltaOp> ops = new ArrayList<>();
    private long copiedBytes;
    private long insertedBytes;
    // Pending copy, merged with the next one when both ranges are contiguous.
    private int copyFrom = -1;
    private int copyLength;
    private CodePointIndex baseIndex;

    OpsBuilder(byte[] base, CodePointIndex baseIndex, byte[] target) {
      this.base = base;
      this.baseIndex = baseIndex;
      this.target = target;
    }

    /** Code points of the base, as given or indexed on first use. */
    CodePointIndex baseIndex() {
      if (baseIndex == null) {
        baseIndex = CodePointIndex.of(base);
      }
      return baseIndex;
    }

    void copy(int targetFrom, int baseFrom, int length) {
      if (length <= 0) {
        return;
      }
      copiedBytes += length;
      if (copyFrom >= 0 && copyFrom + copyLength == baseFrom) {
        copyLength += length;
        return;
      }
      flushCopy();
      copyFrom = baseFrom;
      copyLength = length;
    }

    void insert(int targetFrom, int targetTo) {
      if (targetTo <= targetFrom) {
        return;
      }
      flushCopy();
      insertedBytes += targetTo - targetFrom;
      ops.add(
          new DeltaOp.Insert(
              new String(target, targetFrom, targetTo - targetFrom, StandardCharsets.UTF_8)));
    }

    private void flushCopy() {
      if (copyFrom < 0) {
        return;
      }
      CodePointIndex index = baseIndex();
      long from = index.codePointAt(copyFrom);
      // A long copy (the shared prefix of a 0.5 MB agent turn) is counted from the index, which
      // looks at one block of bytes at most; counting the copy itself made every turn O(body).
      long length =
          copyLength > COUNTED_COPY_BYTES
              ? index.codePointAt(copyFrom + copyLength) - from
              : Utf8.countCodePoints(base, copyFrom, copyFrom + copyLength);
      ops.add(new DeltaOp.Copy(Math.toIntExact(from), Math.toIntExact(length)));
      copyFrom = -1;
    }

    EncodedDelta build(long prefixCodePoints, CodePointIndex targetIndex) {
      flushCopy();
      return new EncodedDelta(ops, prefixCodePoints, copiedBytes, insertedBytes, targetIndex);
    }
  }
}
