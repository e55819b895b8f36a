package io.prefixlog.core.session;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stage one of capture sampling: whether a session's bodies are kept, as a pure function of its
 * session key, the share and the seed (PREFIXLOG_SAMPLE_SESSIONS, PREFIXLOG_SAMPLE_SEED).
 *
 * <p>The rule: {@code u = first 8 bytes of HMAC-SHA-256(key = seed, message = session key in
 * UTF-8), big-endian, top 53 bits / 2^53}, a number in [0, 1); the session is kept when {@code u <
 * share}. No state and no clock, so every bridge instance with the same seed, every restart and
 * every replay decides the same way, and a session is whole or absent. The sets are nested: a
 * session kept at share s is kept at every share above s, so raising the share only adds sessions.
 * A share of 1 keeps every session (u is always below 1) and computes nothing.
 *
 * <p>Why keyed: the session key is already a keyed hash, but an unkeyed rule would let anyone who
 * knows a session key tell whether its bodies are stored; the seed also lets an operator draw
 * another sample. Thread-safe (one {@link Mac} per thread).
 */
public final class SessionSampler {
  /** The default seed; any text works, what matters is that every bridge uses the same one. */
  public static final String DEFAULT_SEED = "prefixlog-sample-v1";

  private static final double TWO_TO_53 = 0x1p53;

  private final double share;
  private final ThreadLocal<Mac> macs;

  /**
   * @param share the share of sessions kept, from 0 to 1
   * @param seed the HMAC key, not empty
   */
  public SessionSampler(double share, String seed) {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("share must be from 0 to 1, got " + share);
    }
    Objects.requireNonNull(seed, "seed");
    if (seed.isEmpty()) {
      throw new IllegalArgumentException("seed must not be empty");
    }
    this.share = share;
    SecretKeySpec key = new SecretKeySpec(seed.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.macs =
        ThreadLocal.withInitial(
            () -> {
              try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                return mac;
              } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
              }
            });
  }

  public double share() {
    return share;
  }

  /** True when every session is kept (share 1): nothing to compute. */
  public boolean keepsAll() {
    return share >= 1;
  }

  /** Whether the bodies of {@code sessionKey}'s requests are kept. */
  public boolean keeps(String sessionKey) {
    if (share >= 1) {
      return true;
    }
    if (share <= 0) {
      return false;
    }
    return position(sessionKey) < share;
  }

  /** The session's position u in [0, 1): kept exactly when u is below the share. */
  public double position(String sessionKey) {
    Objects.requireNonNull(sessionKey, "sessionKey");
    byte[] digest = macs.get().doFinal(sessionKey.getBytes(StandardCharsets.UTF_8));
    long bits = ByteBuffer.wrap(digest, 0, 8).getLong() >>> 11;
    return bits / TWO_TO_53;
  }
}
