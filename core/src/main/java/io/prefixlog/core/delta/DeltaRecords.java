package io.prefixlog.core.delta;

import io.prefixlog.core.request.EngineTokens;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Builds the delta record of one turn from its raw event and the encoder's decision. */
public final class DeltaRecords {
  private DeltaRecords() {}

  /**
   * The record of a validated request, from either form of raw event: a keyframe carries the body
   * as the version 1 event had it, or, for a framed event (whose body is bytes, not a field), as
   * its UTF-8 text when the bytes are well-formed UTF-8 and as base64 otherwise.
   *
   * @param request the validated raw event and its body's bytes
   * @param turn the encoder's decision for it
   */
  public static DeltaRecord of(ValidatedRequest request, EncodedTurn turn) {
    RawRequestEvent raw = request.event();
    if (raw.body() != null || !turn.isKeyframe()) {
      return of(raw, turn);
    }
    String body =
        request.utf8()
            ? new String(request.body(), StandardCharsets.UTF_8)
            : Base64.getEncoder().encodeToString(request.body());
    BodyEncoding encoding = request.utf8() ? BodyEncoding.UTF_8 : BodyEncoding.BASE64;
    return of(raw, turn, body, encoding.wireName());
  }

  /**
   * @param raw the validated raw event (its body fields are copied only for keyframes)
   * @param turn the encoder's decision for it
   */
  public static DeltaRecord of(RawRequestEvent raw, EncodedTurn turn) {
    return of(raw, turn, raw.body(), raw.bodyEncoding());
  }

  private static DeltaRecord of(
      RawRequestEvent raw, EncodedTurn turn, String body, String bodyEncoding) {
    EngineTokens tokens = EngineTokens.of(raw);
    Long promptTokens = tokens.promptTokens();
    Long cachedTokens = tokens.cachedTokens();
    Double hitRate =
        promptTokens != null && promptTokens > 0 && cachedTokens != null
            ? (double) cachedTokens / promptTokens
            : null;
    boolean keyframe = turn.isKeyframe();
    if (turn.keyframeReason() == EncodedTurn.KeyframeReason.RECORD_SIZE
        && BodyEncoding.UTF_8.wireName().equals(bodyEncoding)) {
      // A utf-8 body's text is its bytes decoded: encoding it again gives the exact bytes.
      body = Base64.getEncoder().encodeToString(body.getBytes(StandardCharsets.UTF_8));
      bodyEncoding = BodyEncoding.BASE64.wireName();
    }
    return new DeltaRecord(
        DeltaRecord.SCHEMA_VERSION,
        raw.sessionKey(),
        turn.seq(),
        turn.chain(),
        raw.requestId(),
        raw.ts(),
        raw.model(),
        raw.sessionKeySource(),
        raw.clientAddr(),
        raw.userAgent(),
        raw.headers(),
        raw.method(),
        raw.path(),
        keyframe ? DeltaRecord.KIND_FULL : DeltaRecord.KIND_DELTA,
        keyframe ? turn.keyframeReason().wireName() : null,
        keyframe ? body : null,
        keyframe ? bodyEncoding : null,
        keyframe ? null : turn.base().seq(),
        keyframe ? null : turn.base().sha256(),
        keyframe ? null : turn.delta().ops(),
        turn.chainDepth(),
        raw.bodyLen(),
        raw.bodySha256(),
        keyframe ? 0L : turn.delta().prefixCodePoints(),
        raw.truncated(),
        promptTokens,
        cachedTokens,
        hitRate,
        raw.response());
  }
}
