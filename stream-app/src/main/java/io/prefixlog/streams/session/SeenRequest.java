package io.prefixlog.streams.session;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the dedup window remembers of a capture: the SHA-256 of the body it came with and the key of
 * the turn it became.
 *
 * <p>Written on every request, so binary: a version byte, the digest's 32 bytes, then the turn key
 * without its session (the window store's key starts with it), in UTF-8. The first format, {@code
 * <sha256 hex> <turn key>} in UTF-8, is still read: its first byte is a hex digit, never 1.
 */
record SeenRequest(String bodySha256, String turnKey) {
  private static final byte VERSION = 1;
  private static final HexFormat HEX = HexFormat.of();

  /**
   * @param session the session the entry is kept under ({@code turnKey} starts with it)
   */
  byte[] toBytes(String session) {
    String prefix = session + "/";
    if (!turnKey.startsWith(prefix)) {
      throw new IllegalArgumentException("turn " + turnKey + " is not of session " + session);
    }
    byte[] rest = turnKey.substring(prefix.length()).getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[1 + 32 + rest.length];
    bytes[0] = VERSION;
    System.arraycopy(HEX.parseHex(bodySha256), 0, bytes, 1, 32);
    System.arraycopy(rest, 0, bytes, 33, rest.length);
    return bytes;
  }

  static SeenRequest fromBytes(byte[] bytes, String session) {
    if (bytes.length > 33 && bytes[0] == VERSION) {
      return new SeenRequest(
          HEX.formatHex(Arrays.copyOfRange(bytes, 1, 33)),
          session + "/" + new String(bytes, 33, bytes.length - 33, StandardCharsets.UTF_8));
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    int space = text.indexOf(' ');
    if (space < 0) {
      throw new IllegalArgumentException("not a seen-request entry (" + bytes.length + " bytes)");
    }
    return new SeenRequest(text.substring(0, space), text.substring(space + 1));
  }
}
