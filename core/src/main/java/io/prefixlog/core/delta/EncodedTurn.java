package io.prefixlog.core.delta;

import java.util.List;
import java.util.Objects;

/**
 * The encoder's decision for one request, and what the session state becomes.
 *
 * @param seq the turn's seq
 * @param keyframeReason why the turn is a keyframe, or null for a delta
 * @param base the base a delta was encoded against, or null for a keyframe
 * @param delta the ops, or null for a keyframe
 * @param chainDepth deltas between this turn and its keyframe
 * @param newState the session state after this turn
 * @param storeBody whether the turn's body must be stored as a base under {@code seq}
 * @param evictedSeqs stored bases no longer needed: delete their bodies
 * @param fingerprintStates the body's {@link PrefixFingerprint#states}, for a cache that keeps the
 *     body as a base; null when not computed (a body that is not UTF-8)
 */
public record EncodedTurn(
    long seq,
    KeyframeReason keyframeReason,
    BaseInfo base,
    EncodedDelta delta,
    int chainDepth,
    SessionState newState,
    boolean storeBody,
    List<Long> evictedSeqs,
    long[] fingerprintStates) {

  public EncodedTurn {
    Objects.requireNonNull(newState, "newState");
    evictedSeqs = List.copyOf(evictedSeqs);
    if ((keyframeReason == null) == (delta == null)) {
      throw new IllegalArgumentException("a turn is either a keyframe or a delta");
    }
  }

  /** A turn without its body's fingerprint states. */
  public EncodedTurn(
      long seq,
      KeyframeReason keyframeReason,
      BaseInfo base,
      EncodedDelta delta,
      int chainDepth,
      SessionState newState,
      boolean storeBody,
      List<Long> evictedSeqs) {
    this(seq, keyframeReason, base, delta, chainDepth, newState, storeBody, evictedSeqs, null);
  }

  /** The chain the turn belongs to. */
  public String chain() {
    return newState.chain();
  }

  /**
   * The same turn written whole instead, for {@code reason}: the session state it leads to is
   * unchanged (a base's recorded chain depth may then be higher than its record's, which only makes
   * the next keyframe come sooner).
   */
  public EncodedTurn asKeyframe(KeyframeReason reason) {
    return new EncodedTurn(
        seq, reason, null, null, 0, newState, storeBody, evictedSeqs, fingerprintStates);
  }

  public boolean isKeyframe() {
    return keyframeReason != null;
  }

  /** Why a turn was written whole; the wire names go into {@code keyframe_reason}. */
  public enum KeyframeReason {
    FIRST_TURN("first_turn"),
    NO_CLOSE_BASE("no_close_base"),
    CHAIN_LIMIT("chain_limit"),
    NOT_UTF8("not_utf8"),
    /**
     * The body as JSON text (or its delta) would not fit the largest record the app writes: a body
     * of control characters is six bytes of JSON per byte. It is written as base64 instead.
     */
    RECORD_SIZE("record_size"),
    /**
     * The delta the encoder computed did not rebuild the body when applied to its base (a bug in
     * the encoder, never expected): the turn is written whole instead, and counted in {@code
     * prefixlog_rebuild_mismatches_total}.
     */
    REBUILD_MISMATCH("rebuild_mismatch");

    private final String wireName;

    KeyframeReason(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }
}
