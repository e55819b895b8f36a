package io.prefixlog.bridge.proxy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.PromptChunks;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

/**
 * Writes a raw request event's JSON straight from the captured body bytes, with the same bytes
 * {@code Json.mapper().writeValueAsBytes(event)} gives (EventWriterTest checks it byte for byte).
 *
 * <p>Why: the mapper needs the body as a {@code String} — a strict UTF-8 decode of 20 KB into
 * chars, then Jackson encodes those chars back to UTF-8 while escaping — two passes and two 40 KB
 * char copies per event on the publisher thread. Here a body is checked for strict UTF-8 and
 * escaped in the same pass, into a reused buffer, with the escapes {@code writeString} uses ({@link
 * #escapeIfUtf8}), and written raw. The small parts (headers, response) still go through the
 * mapper. Reuses its output buffer: one writer per publisher thread, not thread-safe.
 */
final class EventWriter {
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  /** Eight bytes of a byte array as one long, for the escape's word-at-a-time test. */
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * What both kinds of event say of the request, {@code request_id} to {@code model}, and its
   * {@code capture_id} and {@code client_request_id} (the record's last fields), as the record's
   * fields (null: left out).
   */
  record RequestFields(
      String requestId,
      long ts,
      String sessionKey,
      String sessionKeySource,
      String clientAddr,
      String userAgent,
      Map<String, String> headers,
      String method,
      String path,
      String model,
      String captureId,
      String clientRequestId) {}

  private final ByteArrayBuilder out = new ByteArrayBuilder(32 << 10);
  private byte[] escaped = new byte[32 << 10];

  /**
   * The event with its body, in {@code format}. {@code JSON}: one object whose {@code body} field
   * is the body (UTF-8 text when valid, else base64), and {@code upstream} (where the proxy
   * forwarded it, or null) comes last, as in the record. {@code FRAMED} (version 2, {@link
   * RawEventFrame}): its header, the same fields but the body's, with {@code schema_version} 2,
   * then the body's bytes as they are; nothing is escaped and nothing checked, the stream app reads
   * the bytes where they lie.
   */
  byte[] write(
      CaptureConfig.RawEventFormat format,
      RequestFields request,
      byte[] body,
      String bodySha256,
      boolean truncated,
      long originalBodyLen,
      ResponseInfo response,
      String upstream) {
    if (format == CaptureConfig.RawEventFormat.FRAMED) {
      byte[] header =
          event(
              request,
              RawEventFrame.SCHEMA_VERSION,
              upstream,
              g ->
                  writeBodyFacts(g, body.length, bodySha256, truncated, originalBodyLen, response));
      return RawEventFrame.frame(header, body);
    }
    return event(
        request,
        RawRequestEvent.SCHEMA_VERSION,
        upstream,
        g -> {
          g.writeFieldName("body");
          int n = escapeIfUtf8(body, 0, body.length);
          boolean utf8 = n >= 0;
          if (utf8) {
            g.writeRawUTF8String(escaped, 0, n);
          } else {
            g.writeString(Base64.getEncoder().encodeToString(body));
          }
          g.writeStringField(
              "body_encoding", (utf8 ? BodyEncoding.UTF_8 : BodyEncoding.BASE64).wireName());
          writeBodyFacts(g, body.length, bodySha256, truncated, originalBodyLen, response);
        });
  }

  /**
   * A metadata-only event's JSON (capture sampling): no {@code body} and no {@code body_encoding};
   * {@code body_len} and {@code body_sha256} of the body left out, then {@code body_omitted},
   * {@code prompt_chunks} and {@code upstream}, in the record's field order.
   */
  byte[] writeMetadataOnly(
      RequestFields request,
      long bodyLen,
      String bodySha256,
      boolean truncated,
      long originalBodyLen,
      ResponseInfo response,
      String bodyOmitted,
      PromptChunks promptChunks,
      String upstream) {
    return event(
        request,
        RawRequestEvent.SCHEMA_VERSION,
        upstream,
        g -> {
          writeBodyFacts(g, bodyLen, bodySha256, truncated, originalBodyLen, response);
          stringField(g, "body_omitted", bodyOmitted);
          if (promptChunks != null) {
            g.writeFieldName("prompt_chunks");
            g.writeObject(promptChunks);
          }
        });
  }

  /** What one kind of event writes between the request's fields and {@code upstream}. */
  @FunctionalInterface
  private interface Middle {
    void write(JsonGenerator g) throws IOException;
  }

  /**
   * One event's JSON object into the reused buffer: the request's fields, then what {@code middle}
   * writes, then {@code upstream} and the ids, the frame every kind of event shares.
   */
  private byte[] event(RequestFields request, int schemaVersion, String upstream, Middle middle) {
    out.reset();
    try (JsonGenerator g = Json.mapper().getFactory().createGenerator(out)) {
      g.setCodec(Json.mapper());
      writeRequestFields(g, request, schemaVersion);
      middle.write(g);
      stringField(g, "upstream", upstream);
      writeIds(g, request);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory does not fail", e);
    }
    return out.toByteArray();
  }

  /** The fields every kind of event starts with, {@code schema_version} to {@code model}. */
  private static void writeRequestFields(JsonGenerator g, RequestFields r, int schemaVersion)
      throws IOException {
    g.writeStartObject();
    g.writeNumberField("schema_version", schemaVersion);
    stringField(g, "request_id", r.requestId());
    g.writeNumberField("ts", r.ts());
    stringField(g, "session_key", r.sessionKey());
    stringField(g, "session_key_source", r.sessionKeySource());
    stringField(g, "client_addr", r.clientAddr());
    stringField(g, "user_agent", r.userAgent());
    if (r.headers() != null) {
      g.writeFieldName("headers");
      g.writeObject(r.headers());
    }
    stringField(g, "method", r.method());
    stringField(g, "path", r.path());
    stringField(g, "model", r.model());
  }

  /** The fields every kind of event ends with, after {@code upstream}. */
  private static void writeIds(JsonGenerator g, RequestFields r) throws IOException {
    stringField(g, "capture_id", r.captureId());
    stringField(g, "client_request_id", r.clientRequestId());
  }

  /** What both kinds of event say of the body and the response, after the body itself if any. */
  private static void writeBodyFacts(
      JsonGenerator g,
      long bodyLen,
      String bodySha256,
      boolean truncated,
      long originalBodyLen,
      ResponseInfo response)
      throws IOException {
    g.writeNumberField("body_len", bodyLen);
    stringField(g, "body_sha256", bodySha256);
    if (truncated) {
      g.writeBooleanField("truncated", true);
      g.writeNumberField("original_body_len", originalBodyLen);
    }
    if (response != null) {
      g.writeFieldName("response");
      g.writeObject(response);
    }
  }

  /**
   * JSON-escapes {@code src} into {@link #escaped} if it is strict UTF-8 (the verdict of {@link
   * Utf8#isStrict}), in one pass: returns the escaped length, or -1 when it is not strict UTF-8
   * (the caller writes base64 then, and what was escaped is discarded). Escapes exactly as
   * Jackson's generator escapes a string by default: {@code "} and {@code \\} backslashed, {@code
   * \b \t \n \f \r} short, other controls below 0x20 as {@code \\u00XX} (upper-case hex),
   * everything else (non-ASCII included) as it is.
   *
   * <p>Why one pass: a body was read twice (validated, then escaped), byte by byte, the two largest
   * self frames of the publisher's profile. Here eight bytes are tested at once (SWAR: is any of
   * them non-ASCII, a control, a quote or a backslash); runs that need nothing, nearly all of a
   * chat body, are copied whole; a multi-byte sequence is validated where it is met, by core's
   * {@link Utf8#sequenceLength} (the rules {@link Utf8#isStrict} applies, stated once).
   */
  int escapeIfUtf8(byte[] src, int offset, int length) {
    int end = offset + length;
    if (escaped.length < length + 64) {
      escaped = new byte[length + (length >> 3) + 64];
    }
    byte[] dst = escaped;
    int n = 0;
    int run = offset;
    int i = offset;
    while (i < end) {
      if (i + 8 <= end && !needsLook((long) LONGS.get(src, i))) {
        i += 8;
        continue;
      }
      int c = src[i] & 0xFF;
      if (c >= 0x80) {
        int sequence = Utf8.sequenceLength(src, i, end);
        if (sequence < 0) {
          return -1;
        }
        i += sequence;
        continue;
      }
      if (c >= 0x20 && c != '"' && c != '\\') {
        i++;
        continue;
      }
      int runLength = i - run;
      if (n + runLength + 6 > dst.length) {
        dst = escaped = Arrays.copyOf(dst, Math.max(dst.length * 2, n + runLength + 6 + (end - i)));
      }
      System.arraycopy(src, run, dst, n, runLength);
      n += runLength;
      i++;
      run = i;
      dst[n++] = '\\';
      switch (c) {
        case '"' -> dst[n++] = '"';
        case '\\' -> dst[n++] = '\\';
        case '\b' -> dst[n++] = 'b';
        case '\t' -> dst[n++] = 't';
        case '\n' -> dst[n++] = 'n';
        case '\f' -> dst[n++] = 'f';
        case '\r' -> dst[n++] = 'r';
        default -> {
          dst[n++] = 'u';
          dst[n++] = '0';
          dst[n++] = '0';
          dst[n++] = HEX[c >> 4];
          dst[n++] = HEX[c & 0xF];
        }
      }
    }
    int runLength = end - run;
    if (n + runLength > dst.length) {
      dst = escaped = Arrays.copyOf(dst, n + runLength);
    }
    System.arraycopy(src, run, dst, n, runLength);
    return n + runLength;
  }

  /** The buffer {@link #escapeIfUtf8} writes to (tests). */
  byte[] escapedBytes() {
    return escaped;
  }

  /**
   * True when one of the eight bytes of {@code w} is not plain ASCII text: its high bit set, below
   * 0x20, {@code "} or {@code \\}. The classic "has a zero byte" test, {@code (v - 0x01..) & ~v &
   * 0x80..}, is exact about whether any byte matches (not about which).
   */
  private static boolean needsLook(long w) {
    long quote = w ^ 0x2222222222222222L;
    long backslash = w ^ 0x5C5C5C5C5C5C5C5CL;
    long t =
        w
            | ((w - 0x2020202020202020L) & ~w)
            | ((quote - 0x0101010101010101L) & ~quote)
            | ((backslash - 0x0101010101010101L) & ~backslash);
    return (t & 0x8080808080808080L) != 0;
  }

  private static void stringField(JsonGenerator g, String name, String value) throws IOException {
    if (value != null) {
      g.writeStringField(name, value);
    }
  }
}
