package io.prefixlog.core.text;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests as lower-case hex, the form every prefixlog record carries. */
public final class Sha256 {
  private static final HexFormat HEX = HexFormat.of();

  private Sha256() {}

  public static String hex(byte[] bytes) {
    return HEX.formatHex(digest().digest(bytes));
  }

  public static String hex(byte[] bytes, int offset, int length) {
    MessageDigest digest = digest();
    digest.update(bytes, offset, length);
    return HEX.formatHex(digest.digest());
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime provides SHA-256", e);
    }
  }
}
