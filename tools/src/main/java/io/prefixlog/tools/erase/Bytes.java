package io.prefixlog.tools.erase;

/** Byte-array search (no content is ever turned into a String for it). */
final class Bytes {
  private Bytes() {}

  /** True when {@code needle} occurs in {@code haystack}. */
  static boolean contains(byte[] haystack, byte[] needle) {
    if (needle.length == 0) {
      return true;
    }
    byte first = needle[0];
    int last = haystack.length - needle.length;
    outer:
    for (int i = 0; i <= last; i++) {
      if (haystack[i] != first) {
        continue;
      }
      for (int j = 1; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
