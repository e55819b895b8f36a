package io.prefixlog.core.text;

import java.util.Arrays;
import java.util.Objects;

/**
 * Code-point offsets of well-formed UTF-8 bytes, found without walking from the start: a checkpoint
 * every {@value #BLOCK} bytes (moved forward to the next code point boundary) holds the code points
 * before it, so converting an offset counts at most one block.
 *
 * <p>Why: delta ops count code points (so that any JSON tool can apply them), while the encoder
 * finds matches in bytes. An agent's turn copies from all over its base, backwards as often as
 * forwards; counting from the start for each copy made the conversions a third of the stream
 * thread's time on 0.5 MB bodies. Building the index is one counting pass, eight bytes at a time.
 *
 * <p>Immutable; holds the bytes it indexes, which must not change.
 */
public final class CodePointIndex {
  /** Bytes per checkpoint. */
  static final int BLOCK = 4096;

  private final byte[] bytes;

  /** Byte offset of each checkpoint: a code point boundary at or after {@code k * BLOCK}. */
  private final int[] positions;

  /** Code points before each checkpoint. */
  private final long[] before;

  private CodePointIndex(byte[] bytes, int[] positions, long[] before) {
    this.bytes = bytes;
    this.positions = positions;
    this.before = before;
  }

  /** The index of {@code bytes}, which must be well-formed UTF-8. */
  public static CodePointIndex of(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return build(bytes, null, 0);
  }

  /**
   * The index of {@code bytes}, whose first {@code shared} bytes are those {@code known} indexes:
   * its checkpoints there are taken as they are and only the rest is counted. A session's next turn
   * repeats its base's bytes up to where it adds to them, so its index costs what it adds.
   */
  public static CodePointIndex extend(CodePointIndex known, byte[] bytes, int shared) {
    Objects.requireNonNull(known, "known");
    Objects.requireNonNull(bytes, "bytes");
    if (shared < 0 || shared > bytes.length || shared > known.bytes.length) {
      throw new IllegalArgumentException(
          "shared must be from 0 to the shorter length, got "
              + shared
              + " of "
              + bytes.length
              + " and "
              + known.bytes.length);
    }
    return build(bytes, known, shared);
  }

  private static CodePointIndex build(byte[] bytes, CodePointIndex known, int shared) {
    int blocks = bytes.length / BLOCK + 1;
    int[] positions = new int[blocks];
    long[] before = new long[blocks];
    long count = 0;
    int previous = 0;
    int start = 1;
    if (known != null) {
      // A checkpoint and the bytes before it are the same wherever the byte it stands on is
      // shared: its position was found by looking at that byte.
      while (start < blocks && start < known.positions.length && known.positions[start] < shared) {
        positions[start] = known.positions[start];
        before[start] = known.before[start];
        start++;
      }
      previous = positions[start - 1];
      count = before[start - 1];
    }
    for (int k = start; k < blocks; k++) {
      int at = k * BLOCK;
      while (at < bytes.length && Utf8.isContinuation(bytes[at])) {
        at++;
      }
      count += Utf8.countCodePoints(bytes, previous, at);
      positions[k] = at;
      before[k] = count;
      previous = at;
    }
    return new CodePointIndex(bytes, positions, before);
  }

  /** Code points in the whole of the bytes. */
  public long codePoints() {
    int last = positions.length - 1;
    return before[last] + Utf8.countCodePoints(bytes, positions[last], bytes.length);
  }

  /** Code points before {@code byteOffset}, which must be a code point boundary. */
  public long codePointAt(int byteOffset) {
    if (byteOffset < 0 || byteOffset > bytes.length) {
      throw new IndexOutOfBoundsException(
          "byte offset " + byteOffset + " outside [0, " + bytes.length + "]");
    }
    int k = Math.min(byteOffset / BLOCK, positions.length - 1);
    if (positions[k] > byteOffset) {
      k--;
    }
    return before[k] + Utf8.countCodePoints(bytes, positions[k], byteOffset);
  }

  /**
   * The byte offset at which code point {@code codePoint} starts ({@code bytes.length} for the
   * count of all of them), or -1 when there are fewer code points.
   */
  public int byteOffsetOf(long codePoint) {
    if (codePoint < 0) {
      return -1;
    }
    int k = Arrays.binarySearch(before, codePoint);
    if (k < 0) {
      k = -k - 2;
    } else {
      // Several checkpoints can share a count only at the end of the bytes; take the first.
      while (k > 0 && before[k - 1] == codePoint) {
        k--;
      }
    }
    long remaining = codePoint - before[k];
    if (remaining > Integer.MAX_VALUE) {
      return -1;
    }
    return Utf8.advance(bytes, positions[k], (int) remaining);
  }
}
