package io.prefixlog.tools.replay;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.tools.reconstruct.DeltaDump;
import java.util.Map;

/** Keyframe delta records as the stream app writes them, and kcat -J lines of them. */
final class CaptureDump {
  private CaptureDump() {}

  /** A captured turn: a keyframe of {@code body} with the response the capture saw. */
  static DeltaRecord turn(
      String session,
      long seq,
      long ts,
      String path,
      String userAgent,
      Map<String, String> headers,
      byte[] body,
      Double latencyMs,
      Long promptTokens,
      Long cachedTokens) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    ResponseInfo response =
        new ResponseInfo(
            200,
            latencyMs,
            latencyMs,
            promptTokens == null ? null : new Usage(promptTokens, 16L, cachedTokens),
            "chatcmpl-" + session + seq,
            null);
    return new DeltaRecord(
        DeltaRecord.SCHEMA_VERSION,
        session,
        seq,
        "0000abcd",
        "req-" + session + "-" + seq,
        ts,
        "prefixlog-demo",
        "header:x-session-id",
        "127.0.0.1",
        userAgent,
        headers,
        "POST",
        path,
        DeltaRecord.KIND_FULL,
        "first_turn",
        encoded.text(),
        encoded.encoding().wireName(),
        null,
        null,
        null,
        0,
        (long) body.length,
        Sha256.hex(body),
        0L,
        false,
        promptTokens,
        promptTokens == null ? null : (cachedTokens == null ? 0L : cachedTokens),
        null,
        response);
  }

  /** The record as a kcat {@code -J} envelope line under its own key. */
  static String envelope(DeltaRecord record, long offset) {
    return DeltaDump.envelope(record.key(), record, offset);
  }
}
