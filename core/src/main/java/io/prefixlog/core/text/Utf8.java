package io.prefixlog.core.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * UTF-8 bytes without decoding them to strings: the strict well-formedness check every component
 * applies to a body ({@link #isStrict}), and code-point arithmetic.
 *
 * <p>The arithmetic assumes well-formed UTF-8 (the delta codec only works on bodies that passed the
 * strict check): a code point starts at every byte that is not a continuation byte ({@code
 * 10xxxxxx}).
 */
public final class Utf8 {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8() {}

  /**
   * Whether {@code bytes[offset, offset + length)} is well-formed UTF-8 as RFC 3629 defines it: no
   * overlong forms, no encoded surrogates, nothing above U+10FFFF, no sequence cut short. The bytes
   * whose decoding gives back exactly the same bytes, so the only ones a body may be stored as text
   * for. Eight ASCII bytes at a time, without decoding: a body is checked on the hot path.
   */
  public static boolean isStrict(byte[] bytes, int offset, int length) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      if (i + Long.BYTES <= end && ((long) LONGS.get(bytes, i) & HIGH_BITS) == 0) {
        i += Long.BYTES;
        continue;
      }
      int sequence = sequenceLength(bytes, i, end);
      if (sequence < 0) {
        return false;
      }
      i += sequence;
    }
    return true;
  }

  /**
   * The length of the well-formed sequence that starts at {@code bytes[i]} and ends by {@code end}
   * (1 for ASCII, up to 4), or -1 when none does: the one statement of the strict rules, for {@link
   * #isStrict} and for a caller that walks the bytes itself for another reason too (the bridge's
   * JSON escape checks a body in the pass that escapes it).
   */
  public static int sequenceLength(byte[] bytes, int i, int end) {
    int c = bytes[i] & 0xFF;
    if (c < 0x80) {
      return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      return i + 1 < end && isContinuation(bytes[i + 1]) ? 2 : -1;
    }
    if (c >= 0xE0 && c <= 0xEF) {
      if (i + 2 >= end) {
        return -1;
      }
      int c1 = bytes[i + 1] & 0xFF;
      // E0: no overlongs (second byte >= A0); ED: no surrogates (second byte <= 9F).
      int lo = c == 0xE0 ? 0xA0 : 0x80;
      int hi = c == 0xED ? 0x9F : 0xBF;
      return c1 >= lo && c1 <= hi && isContinuation(bytes[i + 2]) ? 3 : -1;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      if (i + 3 >= end) {
        return -1;
      }
      int c1 = bytes[i + 1] & 0xFF;
      // F0: no overlongs (second byte >= 90); F4: nothing above U+10FFFF (second byte <= 8F).
      int lo = c == 0xF0 ? 0x90 : 0x80;
      int hi = c == 0xF4 ? 0x8F : 0xBF;
      return c1 >= lo && c1 <= hi && isContinuation(bytes[i + 2]) && isContinuation(bytes[i + 3])
          ? 4
          : -1;
    }
    return -1;
  }

  /** {@link #isStrict(byte[], int, int)} of the whole array. */
  public static boolean isStrict(byte[] bytes) {
    return isStrict(bytes, 0, bytes.length);
  }

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
