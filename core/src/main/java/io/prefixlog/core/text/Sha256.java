package io.prefixlog.core.text;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests as lower-case hex, the form every prefixlog record carries. */
public final class Sha256 {
  private static final HexFormat HEX = HexFormat.of();

  /**
   * One digest per thread, reused: {@code MessageDigest.getInstance} looks the provider up and
   * allocates the state on every call, for every event the capture proxy's publisher writes. {@code
   * digest()} resets it for the next use.
   */
  private static final ThreadLocal<MessageDigest> DIGESTS =
      ThreadLocal.withInitial(Sha256::newDigest);

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
    MessageDigest digest = DIGESTS.get();
    digest.reset();
    return digest;
  }

  /**
   * A fresh SHA-256 digest, for a caller that feeds it in parts or keeps it; {@link #hex} is the
   * shorter way to digest one array.
   */
  public static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime provides SHA-256", e);
    }
  }
}
