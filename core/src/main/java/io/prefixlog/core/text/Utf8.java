package io.prefixlog.core.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Code-point arithmetic on UTF-8 bytes without decoding them to strings.
 *
 * <p>All methods assume well-formed UTF-8 (the delta codec only works on bodies that passed a
 * strict decode): a code point starts at every byte that is not a continuation byte ({@code
 * 10xxxxxx}).
 */
public final class Utf8 {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8() {}

  /** True when {@code b} continues a multi-byte sequence rather than starting a code point. */
  public static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  /** Code points in {@code bytes[from, to)}. Both ends must be code point boundaries. */
  public static int countCodePoints(byte[] bytes, int from, int to) {
    // Eight bytes at a time: a continuation byte has bit 7 set and bit 6 clear.
    int continuations = 0;
    int i = from;
    for (; i + Long.BYTES <= to; i += Long.BYTES) {
      long word = (long) LONGS.get(bytes, i);
      continuations += Long.bitCount(word & ~(word << 1) & HIGH_BITS);
    }
    for (; i < to; i++) {
      if (isContinuation(bytes[i])) {
        continuations++;
      }
    }
    return (to - from) - continuations;
  }

  /**
   * The byte offset of code point {@code codePoints} counted from byte {@code from}, or -1 when the
   * bytes end first.
   */
  public static int advance(byte[] bytes, int from, int codePoints) {
    int i = from;
    int remaining = codePoints;
    // Eight bytes at a time while the target lies beyond them (this is the delta decoder's and the
    // encoder's rebuild check's inner loop: 11 % of the stream thread's samples byte by byte). Each
    // byte that is not a continuation starts a code point; a code point that starts in the word
    // may end past it, so its continuation bytes are skipped before the next word.
    while (remaining > Long.BYTES && i + Long.BYTES <= bytes.length) {
      long word = (long) LONGS.get(bytes, i);
      int starts = Long.BYTES - Long.bitCount(word & ~(word << 1) & HIGH_BITS);
      if (starts >= remaining) {
        break;
      }
      i += Long.BYTES;
      remaining -= starts;
      while (i < bytes.length && isContinuation(bytes[i])) {
        i++;
      }
    }
    while (remaining > 0) {
      if (i >= bytes.length) {
        return -1;
      }
      i++;
      while (i < bytes.length && isContinuation(bytes[i])) {
        i++;
      }
      remaining--;
    }
    return i;
  }
}
