package io.prefixlog.schemas.request;

import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The framed form of a raw request event (schema version 2): the event's fields as JSON, then the
 * body's exact bytes, so that a body is carried verbatim, neither escaped into a JSON string by the
 * capture nor unescaped, decoded and re-encoded by the stream app.
 *
 * <pre>
 * offset 0  4 bytes  magic 0x00 'P' 'L' 0x02 (no JSON text starts with a zero byte)
 *        4  4 bytes  the header's length H, big-endian
 *        8  H bytes  the header: the event's JSON (raw-request-event.v2.schema.json): the fields of
 *                    version 1 but {@code body} and {@code body_encoding}, {@code schema_version} 2
 *    8 + H  the rest the body, {@code body_len} bytes
 * </pre>
 *
 * <p>A version 1 event is a JSON object and never starts with the magic, so a reader tells the two
 * apart by their first byte and accepts both on one topic.
 */
public final class RawEventFrame {
  /** The {@code schema_version} of a framed event's header. */
  public static final int SCHEMA_VERSION = 2;

  /** Bytes before the header. */
  public static final int PREAMBLE_BYTES = 8;

  private static final byte[] MAGIC = {0, 'P', 'L', SCHEMA_VERSION};

  private static final JsonSerde<RawRequestEvent> HEADERS = JsonSerde.of(RawRequestEvent.class);

  private RawEventFrame() {}

  /**
   * Where the header and the body lie in a framed value.
   *
   * @param value the whole record value
   */
  public record Parts(
      byte[] value, int headerOffset, int headerLength, int bodyOffset, int bodyLength) {
    public Parts {
      Objects.requireNonNull(value, "value");
    }

    /** A copy of the body's bytes. */
    public byte[] body() {
      byte[] body = new byte[bodyLength];
      System.arraycopy(value, bodyOffset, body, 0, bodyLength);
      return body;
    }
  }

  /** Whether {@code value} starts as a framed event does (it may still be cut short). */
  public static boolean isFramed(byte[] value) {
    if (value == null || value.length < MAGIC.length) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (value[i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The header and body of a framed value.
   *
   * @throws IllegalArgumentException naming what is wrong when the value is not a whole frame
   */
  public static Parts parse(byte[] value) {
    if (!isFramed(value)) {
      throw new IllegalArgumentException("the value does not start with the raw event frame magic");
    }
    if (value.length < PREAMBLE_BYTES) {
      throw new IllegalArgumentException(
          "the frame has " + value.length + " bytes, fewer than its " + PREAMBLE_BYTES + " first");
    }
    int headerLength = ByteBuffer.wrap(value, MAGIC.length, 4).getInt();
    if (headerLength < 2 || headerLength > value.length - PREAMBLE_BYTES) {
      throw new IllegalArgumentException(
          "the frame's header length "
              + headerLength
              + " does not fit its "
              + (value.length - PREAMBLE_BYTES)
              + " bytes after the preamble");
    }
    int bodyOffset = PREAMBLE_BYTES + headerLength;
    return new Parts(value, PREAMBLE_BYTES, headerLength, bodyOffset, value.length - bodyOffset);
  }

  /**
   * The framed form of an event: its fields as the header ({@code schema_version} 2, no {@code
   * body}, no {@code body_encoding}), then {@code body}.
   *
   * @param event the event's fields; its {@code body} and {@code body_encoding}, if any, are left
   *     out
   * @param body the body's exact bytes, {@code body_len} of them
   */
  public static byte[] frame(RawRequestEvent event, byte[] body) {
    RawRequestEvent header =
        new RawRequestEvent(
            SCHEMA_VERSION,
            event.requestId(),
            event.ts(),
            event.sessionKey(),
            event.sessionKeySource(),
            event.clientAddr(),
            event.userAgent(),
            event.headers(),
            event.method(),
            event.path(),
            event.model(),
            null,
            null,
            event.bodyLen(),
            event.bodySha256(),
            event.truncated(),
            event.originalBodyLen(),
            event.response(),
            null,
            null,
            event.upstream(),
            event.captureId(),
            event.clientRequestId());
    return frame(HEADERS.toBytes(header), body);
  }

  /**
   * A raw event of either form as version 1 carries it: a framed event's header with its body as a
   * field ({@link BodyEncoding#encode}: its text when the bytes are well-formed UTF-8, else base64)
   * and {@code schema_version} 1; a version 1 event as it is. For readers that want one shape, such
   * as tools and tests; the stream app checks a framed body where it lies instead.
   *
   * @throws IllegalArgumentException when the value is neither a frame nor JSON of the record
   */
  public static RawRequestEvent readAsVersion1(byte[] value) {
    if (!isFramed(value)) {
      return HEADERS.fromBytes(value);
    }
    Parts parts = parse(value);
    RawRequestEvent header;
    try {
      header =
          Json.mapper()
              .readValue(value, parts.headerOffset(), parts.headerLength(), RawRequestEvent.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "the frame's header: " + JsonSerde.describeReadFailure(RawRequestEvent.class, e), e);
    }
    BodyEncoding.EncodedBody body = BodyEncoding.encode(parts.body());
    return new RawRequestEvent(
        RawRequestEvent.SCHEMA_VERSION,
        header.requestId(),
        header.ts(),
        header.sessionKey(),
        header.sessionKeySource(),
        header.clientAddr(),
        header.userAgent(),
        header.headers(),
        header.method(),
        header.path(),
        header.model(),
        body.text(),
        body.encoding().wireName(),
        header.bodyLen(),
        header.bodySha256(),
        header.truncated(),
        header.originalBodyLen(),
        header.response(),
        null,
        null,
        header.upstream(),
        header.captureId(),
        header.clientRequestId());
  }

  /** A framed value of {@code header} (the event's JSON) and {@code body}. */
  public static byte[] frame(byte[] header, byte[] body) {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(body, "body");
    byte[] value = new byte[PREAMBLE_BYTES + header.length + body.length];
    System.arraycopy(MAGIC, 0, value, 0, MAGIC.length);
    ByteBuffer.wrap(value, MAGIC.length, 4).putInt(header.length);
    System.arraycopy(header, 0, value, PREAMBLE_BYTES, header.length);
    System.arraycopy(body, 0, value, PREAMBLE_BYTES + header.length, body.length);
    return value;
  }
}
