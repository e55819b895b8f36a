package io.prefixlog.core.delta;

/**
 * How the session encoder trades bytes for state and rebuild cost.
 *
 * @param maxBases bases kept per session (the last turns); more bases keep interleaved chats and
 *     branches cheap, at the cost of state
 * @param maxBaseBytes total bytes of the bases kept per session; a body larger than this is never
 *     stored as a base
 * @param keyframeInterval at most this many records per chain: a delta whose base is already {@code
 *     keyframeInterval - 1} deltas from its keyframe becomes a keyframe, bounding the records a
 *     reader applies to rebuild one turn. A keyframe stores the whole body again, which for a
 *     coding agent's 0.5 MB request costs as much as dozens of its deltas, so the default is long:
 *     only sessions of hundreds of turns see a second one
 * @param maxInsertedFraction above this share of literal bytes against the best base, the base is
 *     not close enough and a keyframe is written
 * @param goodEnoughFraction at or below this share of literal bytes the first candidate is taken
 *     without trying the others
 * @param minMatchBytes the shortest match worth a copy op
 */
public record EncoderSettings(
    int maxBases,
    long maxBaseBytes,
    int keyframeInterval,
    double maxInsertedFraction,
    double goodEnoughFraction,
    int minMatchBytes) {

  public static final EncoderSettings DEFAULTS =
      new EncoderSettings(4, 8L * 1024 * 1024, 256, 0.5, 0.1, 64);

  public EncoderSettings {
    if (maxBases < 1) {
      throw new IllegalArgumentException("maxBases must be >= 1, got " + maxBases);
    }
    if (maxBaseBytes < 1) {
      throw new IllegalArgumentException("maxBaseBytes must be >= 1, got " + maxBaseBytes);
    }
    if (keyframeInterval < 1) {
      throw new IllegalArgumentException("keyframeInterval must be >= 1, got " + keyframeInterval);
    }
    if (!(maxInsertedFraction >= 0 && maxInsertedFraction <= 1)) {
      throw new IllegalArgumentException(
          "maxInsertedFraction must be in [0, 1], got " + maxInsertedFraction);
    }
    if (!(goodEnoughFraction >= 0 && goodEnoughFraction <= 1)) {
      throw new IllegalArgumentException(
          "goodEnoughFraction must be in [0, 1], got " + goodEnoughFraction);
    }
  }
}
