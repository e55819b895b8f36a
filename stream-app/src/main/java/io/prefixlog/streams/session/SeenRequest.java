package io.prefixlog.streams.session;

import java.nio.charset.StandardCharsets;

/**
 * What the dedup window remembers of a request id: the SHA-256 of the body it came with and the key
 * of the turn it became. Stored as {@code <sha256 hex> <turn key>} in UTF-8: small, and readable in
 * a changelog dump.
 */
record SeenRequest(String bodySha256, String turnKey) {
  byte[] toBytes() {
    return (bodySha256 + " " + turnKey).getBytes(StandardCharsets.UTF_8);
  }

  static SeenRequest fromBytes(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    int space = text.indexOf(' ');
    if (space < 0) {
      throw new IllegalArgumentException("not a seen-request entry (" + bytes.length + " bytes)");
    }
    return new SeenRequest(text.substring(0, space), text.substring(space + 1));
  }
}
