package io.prefixlog.streams.topology;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.streams.lookup.LookupInputs;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Builds raw request events the way a producer would, for tests. */
final class RawEvents {
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);
  private static int counter;

  private RawEvents() {}

  static RawRequestEvent of(String session, byte[] body) {
    return of(session, body, null);
  }

  /** An event as {@link LookupInputs#event} builds it, with the next request id and time. */
  static RawRequestEvent of(String session, byte[] body, Usage usage) {
    counter++;
    return LookupInputs.event(
        "req-" + counter, 1_700_000_000_000L + counter, session, "test-model", body, usage);
  }

  /** An event with this request id and capture time, no headers and no response. */
  static RawRequestEvent of(String session, String requestId, long ts, byte[] body) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        1,
        requestId,
        ts,
        session,
        "header:x-session-id",
        "127.0.0.1",
        "test-agent/1.0",
        Map.of(),
        "POST",
        "/v1/chat/completions",
        "test-model",
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * An event as the capture proxy writes it: its capture id as {@code request_id} and {@code
   * capture_id}, the client's id (or null), and the engine's status.
   */
  static RawRequestEvent captured(
      String session, String captureId, String clientRequestId, long ts, byte[] body, int status) {
    RawRequestEvent e = of(session, captureId, ts, body);
    return new RawRequestEvent(
        e.schemaVersion(),
        e.requestId(),
        e.ts(),
        e.sessionKey(),
        e.sessionKeySource(),
        e.clientAddr(),
        e.userAgent(),
        e.headers(),
        e.method(),
        e.path(),
        e.model(),
        e.body(),
        e.bodyEncoding(),
        e.bodyLen(),
        e.bodySha256(),
        e.truncated(),
        e.originalBodyLen(),
        new ResponseInfo(
            status,
            20.5,
            10.25,
            status == 200 ? new Usage(42L, 7L, 0L) : null,
            status == 200 ? "chatcmpl-" + captureId : null,
            null),
        null,
        null,
        "http://127.0.0.1:8000",
        captureId,
        clientRequestId);
  }

  /**
   * An event of {@code tenant} as the capture proxy records it ({@link
   * RawRequestEvent#TENANT_HEADER}), with its body, or without it as a sampled-out request is sent.
   */
  static RawRequestEvent ofTenant(
      String session, String requestId, long ts, byte[] body, String tenant, boolean sampledOut) {
    RawRequestEvent e = of(session, requestId, ts, body);
    return new RawRequestEvent(
        e.schemaVersion(),
        e.requestId(),
        e.ts(),
        e.sessionKey(),
        e.sessionKeySource(),
        e.clientAddr(),
        e.userAgent(),
        Map.of(RawRequestEvent.TENANT_HEADER, tenant),
        e.method(),
        e.path(),
        e.model(),
        sampledOut ? null : e.body(),
        sampledOut ? null : e.bodyEncoding(),
        e.bodyLen(),
        e.bodySha256(),
        e.truncated(),
        e.originalBodyLen(),
        e.response(),
        sampledOut ? RawRequestEvent.SAMPLED_OUT : null,
        null,
        null,
        null,
        null);
  }

  static byte[] bytes(RawRequestEvent event) {
    return SERDE.toBytes(event);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
