package io.prefixlog.core.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of JSON string text tested at once (SWAR), for the scanners that copy or skip plain
 * runs of a body word by word: the capture proxy's escaping.
 */
public final class JsonWords {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private JsonWords() {}

  /** The eight bytes of {@code b} from {@code i} as one long (little-endian). */
  public static long word(byte[] b, int i) {
    return (long) LONGS.get(b, i);
  }

  /**
   * True when one of the eight bytes of {@code w} is not plain ASCII string text: its high bit set,
   * below 0x20, {@code "} or {@code \\}. The classic "has a zero byte" test, {@code (v - 0x01..) &
   * ~v & 0x80..}, is exact about whether any byte matches (not about which).
   */
  public static boolean needsLook(long w) {
    long quote = w ^ 0x2222222222222222L;
    long backslash = w ^ 0x5C5C5C5C5C5C5C5CL;
    long t =
        w
            | ((w - 0x2020202020202020L) & ~w)
            | ((quote - 0x0101010101010101L) & ~quote)
            | ((backslash - 0x0101010101010101L) & ~backslash);
    return (t & 0x8080808080808080L) != 0;
  }
}
