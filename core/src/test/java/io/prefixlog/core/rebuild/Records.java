package io.prefixlog.core.rebuild;

import io.prefixlog.core.delta.DeltaEncoder;
import io.prefixlog.core.delta.EncodedDelta;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import java.util.List;

/**
 * Builds delta records the way the stream app wrote them before chains (schema version 2, key
 * {@code session_key/seq}), with the core DeltaEncoder; {@link #inChain} moves one to version 3.
 */
final class Records {
  private static final DeltaEncoder ENCODER = DeltaEncoder.withDefaults();

  private Records() {}

  static DeltaRecord keyframe(String session, long seq, byte[] body) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return record(
        session,
        seq,
        DeltaRecord.KIND_FULL,
        encoded.text(),
        encoded.encoding().wireName(),
        null,
        null,
        null,
        body.length,
        Sha256.hex(body));
  }

  static DeltaRecord delta(String session, long seq, long baseSeq, byte[] base, byte[] body) {
    EncodedDelta delta = ENCODER.encode(base, body);
    return withOps(session, seq, baseSeq, Sha256.hex(base), delta.ops(), body);
  }

  static DeltaRecord withOps(
      String session, long seq, long baseSeq, String baseSha, List<DeltaOp> ops, byte[] body) {
    return record(
        session,
        seq,
        DeltaRecord.KIND_DELTA,
        null,
        null,
        baseSeq,
        baseSha,
        ops,
        body.length,
        Sha256.hex(body));
  }

  static DeltaRecord record(
      String session,
      long seq,
      String kind,
      String body,
      String bodyEncoding,
      Long baseSeq,
      String baseSha,
      List<DeltaOp> ops,
      long bodyLen,
      String bodySha) {
    return new DeltaRecord(
        DeltaRecord.SCHEMA_VERSION_V2,
        session,
        seq,
        null,
        "req-" + session + "-" + seq,
        1_700_000_000_000L + seq,
        "prefixlog-demo",
        "header:x-session-id",
        "127.0.0.1",
        "test",
        null,
        "POST",
        "/v1/chat/completions",
        kind,
        DeltaRecord.KIND_FULL.equals(kind) ? "first_turn" : null,
        body,
        bodyEncoding,
        baseSeq,
        baseSha,
        ops,
        DeltaRecord.KIND_FULL.equals(kind) ? 0 : 1,
        bodyLen,
        bodySha,
        0L,
        false,
        null,
        null,
        null,
        null);
  }

  /** The same record as schema version 3 in {@code chain}. */
  static DeltaRecord inChain(DeltaRecord r, String chain) {
    return r.withLayout(DeltaRecord.SCHEMA_VERSION, chain);
  }

  /** The same record with other ops (to corrupt or break it). */
  static DeltaRecord replaceOps(DeltaRecord r, List<DeltaOp> ops) {
    return record(
        r.sessionKey(),
        r.seq(),
        r.kind(),
        r.body(),
        r.bodyEncoding(),
        r.baseSeq(),
        r.baseSha256(),
        ops,
        r.bodyLen(),
        r.bodySha256());
  }
}
