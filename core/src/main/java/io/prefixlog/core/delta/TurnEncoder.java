package io.prefixlog.core.delta;

import io.prefixlog.core.delta.EncodedTurn.KeyframeReason;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.text.CodePointIndex;
import io.prefixlog.core.text.Sha256;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Decides how each request of a session is written: which stored base it is encoded against, or why
 * it is a keyframe, and which bases the session keeps afterwards.
 *
 * <p>Candidates are ranked by the prefix they share with the request, estimated from stored {@link
 * PrefixFingerprint}s (newest first among equals), so that usually only one stored body is loaded.
 * The first candidate is taken when it leaves at most {@code goodEnoughFraction} of the body as
 * literal text; otherwise every candidate is tried and the one with the fewest literal bytes wins.
 * This is what keeps branches, regenerations and interleaved chats under one key cheap.
 *
 * <p>Pure logic: the stream app backs {@link BaseBodies} with a RocksDB store, the benchmarks and
 * tools with memory.
 */
public final class TurnEncoder {
  /** Computes the ops from a base to a target (the {@link DeltaEncoder}; tests inject faults). */
  interface OpsEncoder {
    EncodedDelta encode(byte[] base, CodePointIndex baseIndex, byte[] target);
  }

  private final EncoderSettings settings;
  private final OpsEncoder encoder;

  public TurnEncoder(EncoderSettings settings) {
    this(settings, new DeltaEncoder(settings.minMatchBytes())::encode);
  }

  TurnEncoder(EncoderSettings settings, OpsEncoder encoder) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.encoder = Objects.requireNonNull(encoder, "encoder");
  }

  public EncoderSettings settings() {
    return settings;
  }

  /**
   * Encodes one request body.
   *
   * @param state the session's state before this request ({@link SessionState#newChain} if new)
   * @param body the exact request bytes
   * @param utf8 whether the bytes are well-formed UTF-8 (only such bodies can be or have bases)
   * @param bodies loads stored bases
   * @param nowMs the request's record time, recorded as the session's last activity (never moved
   *     back by an older record)
   */
  public EncodedTurn encode(
      SessionState state, byte[] body, boolean utf8, BaseBodies bodies, long nowMs) {
    return encode(state, body, Sha256.hex(body), utf8, bodies, nowMs);
  }

  /**
   * Encodes a validated request's body, with the SHA-256 its event carries: validation has checked
   * it against the body, so the body is not digested again.
   */
  public EncodedTurn encode(
      SessionState state, ValidatedRequest request, BaseBodies bodies, long nowMs) {
    return encode(
        state, request.body(), request.event().bodySha256(), request.utf8(), bodies, nowMs);
  }

  /**
   * Encodes one request body whose SHA-256 is already known (the stream app has verified it against
   * the raw event), sparing a second digest of the body.
   *
   * @param bodySha256 the lower-case hex SHA-256 of {@code body}
   */
  public EncodedTurn encode(
      SessionState state,
      byte[] body,
      String bodySha256,
      boolean utf8,
      BaseBodies bodies,
      long nowMs) {
    long seq = state.nextSeq();
    long lastSeenMs = Math.max(state.lastSeenMs(), nowMs);
    if (!utf8) {
      SessionState next =
          new SessionState(state.chain(), seq + 1, lastSeenMs, state.bases(), state.log());
      return new EncodedTurn(seq, KeyframeReason.NOT_UTF8, null, null, 0, next, false, List.of());
    }
    long[] states = fingerprintStates(state, body, bodies);
    long[] fingerprint = PrefixFingerprint.fingerprint(states);
    Choice best = chooseBase(state, body, fingerprint, bodies);

    KeyframeReason reason = null;
    if (best == null) {
      reason =
          state.bases().isEmpty() && seq == 1
              ? KeyframeReason.FIRST_TURN
              : KeyframeReason.NO_CLOSE_BASE;
    } else if (best.delta.insertedFraction() > settings.maxInsertedFraction()) {
      reason = KeyframeReason.NO_CLOSE_BASE;
    } else if (best.base.chainDepth() + 1 >= settings.keyframeInterval()) {
      reason = KeyframeReason.CHAIN_LIMIT;
    } else if (!rebuilds(best, body)) {
      // Lossless whatever the encoder does: a delta is only written once it was seen to rebuild
      // the body byte for byte; a mismatch (a bug, by definition) is written whole and counted.
      reason = KeyframeReason.REBUILD_MISMATCH;
    }
    int chainDepth = reason == null ? best.base.chainDepth() + 1 : 0;
    BaseInfo stored = new BaseInfo(seq, bodySha256, chainDepth, body.length, fingerprint);
    List<Long> evicted = new ArrayList<>();
    List<BaseInfo> bases = keep(stored, state.bases(), evicted);
    boolean storeBody = bases.contains(stored);
    SessionState next = new SessionState(state.chain(), seq + 1, lastSeenMs, bases, state.log());
    if (reason != null) {
      return new EncodedTurn(seq, reason, null, null, 0, next, storeBody, evicted, states);
    }
    return new EncodedTurn(
        seq, null, best.base, best.delta, chainDepth, next, storeBody, evicted, states);
  }

  /**
   * The body's fingerprint states, taken up from the session's newest base where the two bodies
   * part when that base's states are at hand ({@link BaseBodies#fingerprinted}), else computed over
   * the body.
   */
  private static long[] fingerprintStates(SessionState state, byte[] body, BaseBodies bodies) {
    if (!state.bases().isEmpty()) {
      PrefixFingerprint.Known newest = bodies.fingerprinted(state.bases().get(0).seq());
      if (newest != null) {
        int shared = Arrays.mismatch(newest.body(), body);
        return PrefixFingerprint.statesFrom(
            body, newest.states(), shared < 0 ? body.length : shared);
      }
    }
    return PrefixFingerprint.states(body);
  }

  private Choice chooseBase(
      SessionState state, byte[] body, long[] fingerprint, BaseBodies bodies) {
    List<BaseInfo> candidates = new ArrayList<>(state.bases());
    candidates.sort(
        Comparator.comparingLong(
                (BaseInfo b) ->
                    PrefixFingerprint.sharedPrefixAtLeast(b.fingerprintView(), fingerprint))
            .reversed()
            .thenComparing(Comparator.comparingLong(BaseInfo::seq).reversed()));
    Choice best = null;
    for (BaseInfo candidate : candidates) {
      byte[] baseBody = bodies.load(candidate.seq());
      if (baseBody == null) {
        continue;
      }
      CodePointIndex baseIndex = bodies.indexOf(candidate.seq(), baseBody);
      EncodedDelta delta = encoder.encode(baseBody, baseIndex, body);
      if (best == null || delta.insertedBytes() < best.delta.insertedBytes()) {
        best = new Choice(candidate, baseBody, baseIndex, delta);
      }
      if (best.delta.insertedFraction() <= settings.goodEnoughFraction()) {
        break;
      }
    }
    return best;
  }

  /** The newest bases within the count and byte limits; what falls out goes to {@code evicted}. */
  private List<BaseInfo> keep(BaseInfo newest, List<BaseInfo> older, List<Long> evicted) {
    List<BaseInfo> kept = new ArrayList<>();
    long bytes = 0;
    List<BaseInfo> all = new ArrayList<>();
    all.add(newest);
    all.addAll(older);
    for (BaseInfo base : all) {
      boolean fits =
          kept.size() < settings.maxBases() && bytes + base.length() <= settings.maxBaseBytes();
      if (fits) {
        kept.add(base);
        bytes += base.length();
      } else if (base != newest) {
        evicted.add(base.seq());
      }
    }
    return kept;
  }

  /** Whether the chosen delta, applied to its base, gives back exactly the body. */
  private static boolean rebuilds(Choice choice, byte[] body) {
    try {
      return Arrays.equals(
          DeltaDecoder.apply(choice.baseBody, choice.baseIndex, choice.delta.ops(), body.length),
          body);
    } catch (DeltaException e) {
      return false;
    }
  }

  private record Choice(
      BaseInfo base, byte[] baseBody, CodePointIndex baseIndex, EncodedDelta delta) {}
}
