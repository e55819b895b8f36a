package io.prefixlog.bridge.proxy;

/**
 * A one-pass strict UTF-8 check with the same verdict as {@code BodyEncoding.strictUtf8} (a
 * REPORTing {@code CharsetDecoder}), without decoding: overlong forms, encoded surrogates, code
 * points above U+10FFFF and truncated sequences are invalid. ASCII runs, most of a chat body, go
 * eight bytes at a time.
 */
final class Utf8 {
  private Utf8() {}

  static boolean isStrict(byte[] b, int offset, int length) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      // Fast path: eight ASCII bytes at once.
      if (i + 8 <= end
          && ((b[i] | b[i + 1] | b[i + 2] | b[i + 3] | b[i + 4] | b[i + 5] | b[i + 6] | b[i + 7])
                  & 0x80)
              == 0) {
        i += 8;
        continue;
      }
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        i++;
      } else if (c >= 0xC2 && c <= 0xDF) {
        if (i + 1 >= end || !continuation(b[i + 1])) {
          return false;
        }
        i += 2;
      } else if (c >= 0xE0 && c <= 0xEF) {
        if (i + 2 >= end) {
          return false;
        }
        int c1 = b[i + 1] & 0xFF;
        // E0: no overlongs (second byte >= A0); ED: no surrogates (second byte <= 9F).
        int lo = c == 0xE0 ? 0xA0 : 0x80;
        int hi = c == 0xED ? 0x9F : 0xBF;
        if (c1 < lo || c1 > hi || !continuation(b[i + 2])) {
          return false;
        }
        i += 3;
      } else if (c >= 0xF0 && c <= 0xF4) {
        if (i + 3 >= end) {
          return false;
        }
        int c1 = b[i + 1] & 0xFF;
        // F0: no overlongs (second byte >= 90); F4: nothing above U+10FFFF (second byte <= 8F).
        int lo = c == 0xF0 ? 0x90 : 0x80;
        int hi = c == 0xF4 ? 0x8F : 0xBF;
        if (c1 < lo || c1 > hi || !continuation(b[i + 2]) || !continuation(b[i + 3])) {
          return false;
        }
        i += 4;
      } else {
        return false;
      }
    }
    return true;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}
