package io.prefixlog.tools.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
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
    return envelope(record.key(), record, offset);
  }

  /** A kcat {@code -J} envelope line; a null record is a tombstone. */
  static String envelope(String key, DeltaRecord record, long offset) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("topic", "prefixlog.session.deltas");
    node.put("partition", 0);
    node.put("offset", offset);
    node.put("tstype", "create");
    node.put("ts", 1_700_000_000_000L);
    node.put("broker", 1);
    node.put("key", key);
    if (record == null) {
      node.putNull("payload");
    } else {
      try {
        node.put("payload", Json.mapper().writeValueAsString(record));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    return node.toString();
  }
}
