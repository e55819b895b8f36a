package io.prefixlog.tools.replay;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A consistent sample of sessions: a session is in when its key's position, a number in [0, 1)
 * taken from the SHA-256 of the key, is below the fraction. The decision depends on the key alone,
 * so a session is replayed whole or not at all, the same sessions are chosen on every run, and the
 * sample of a smaller fraction is a subset of a larger one's (0.1 ⊂ 0.5).
 *
 * <p>The key is hashed again, although a session key is already an HMAC, so that the choice does
 * not depend on how keys are made (a dump edited by hand, a future key format).
 */
record SessionSample(double fraction) {
  SessionSample {
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in (0, 1], got " + fraction);
    }
  }

  static final SessionSample ALL = new SessionSample(1);

  boolean includes(String sessionKey) {
    return fraction >= 1 || position(sessionKey) < fraction;
  }

  /** The key's place in [0, 1): the top 53 bits of its SHA-256, as a double's mantissa holds. */
  static double position(String sessionKey) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(sessionKey.getBytes(StandardCharsets.UTF_8));
      return (ByteBuffer.wrap(digest).getLong() >>> 11) * 0x1.0p-53;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
