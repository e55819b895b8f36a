package io.prefixlog.core.delta;

import java.util.Objects;

/**
 * What a session remembers of one stored base, besides its bytes.
 *
 * @param seq the turn the base is
 * @param sha256 hex digest of its bytes
 * @param chainDepth deltas between it and its keyframe (0 for a keyframe)
 * @param length its size in bytes
 * @param fingerprint its {@link PrefixFingerprint}
 */
public record BaseInfo(long seq, String sha256, int chainDepth, int length, long[] fingerprint) {
  public BaseInfo {
    Objects.requireNonNull(sha256, "sha256");
    Objects.requireNonNull(fingerprint, "fingerprint");
    fingerprint = fingerprint.clone();
  }

  @Override
  public long[] fingerprint() {
    return fingerprint.clone();
  }

  long[] fingerprintView() {
    return fingerprint;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BaseInfo other
        && seq == other.seq
        && chainDepth == other.chainDepth
        && length == other.length
        && sha256.equals(other.sha256)
        && java.util.Arrays.equals(fingerprint, other.fingerprint);
  }

  @Override
  public int hashCode() {
    return Objects.hash(seq, sha256, chainDepth, length, java.util.Arrays.hashCode(fingerprint));
  }
}
