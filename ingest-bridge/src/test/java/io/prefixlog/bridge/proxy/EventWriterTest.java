package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.PromptChunks;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class EventWriterTest {
  private final EventWriter writer = new EventWriter();

  @Test
  void shouldWriteTheMappersBytesForUtf8BodiesWithEscapesAndNonAscii() throws Exception {
    List<String> bodies =
        List.of(
            "",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
            "quote \" backslash \\ slash / newline \n tab \t cr \r bell \u0007 nul \u0000 del"
                + " \u007f",
            "é ü ß — 中文 日本語 \u2028 \u2029 emoji \uD83D\uDE00 \uD83E\uDD16 end",
            "</script> <!-- & ' ` \u001f \u0080 \u00ff \uFFFD \uFFFF",
            // Escapes that grow the output six-fold, past the writer's initial buffers.
            "\u0001".repeat(40_000) + "x" + "\"\\".repeat(30_000),
            "a".repeat(70_000) + "\n");
    for (String body : bodies) {
      // Twice each: the writer's buffers are reused.
      assertSame(body.getBytes(StandardCharsets.UTF_8), true);
      assertSame(body.getBytes(StandardCharsets.UTF_8), true);
      assertSame(body.getBytes(StandardCharsets.UTF_8), false);
    }
  }

  @Test
  void shouldWriteBase64LikeTheMapperForBodiesThatAreNotUtf8() throws Exception {
    List<byte[]> bodies =
        List.of(
            new byte[] {(byte) 0xFF, 'a'},
            new byte[] {'a', (byte) 0xC0, (byte) 0x80}, // overlong NUL
            new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // an encoded surrogate
            new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
            new byte[] {'x', (byte) 0xE2, (byte) 0x82}); // truncated at the end (a capture cut)
    for (byte[] body : bodies) {
      assertSame(body, true);
    }
  }

  @Test
  void shouldEscapeInOnePassAsValidatingThenEscapingWithJacksonDoesOnRandomBytes()
      throws Exception {
    // Given: short random bodies mixing ASCII text, the bytes that need an escape, lead bytes of
    // every length (valid and not), continuation bytes, at every offset of an 8-byte word
    Random random = new Random(20);
    byte[] text = "ab \"\\\n\t\r\b\f\u0000\u0001\u001f\u007f/".getBytes(StandardCharsets.UTF_8);
    int[] leads = {0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF};
    for (int round = 0; round < 50_000; round++) {
      byte[] b = new byte[random.nextInt(40)];
      for (int i = 0; i < b.length; i++) {
        int pick = random.nextInt(10);
        if (pick < 5) {
          b[i] = text[random.nextInt(text.length)];
        } else if (pick < 7) {
          b[i] = (byte) (0x80 | random.nextInt(64));
        } else if (pick < 9) {
          b[i] = (byte) leads[random.nextInt(leads.length)];
        } else {
          b[i] = (byte) random.nextInt(256);
        }
      }

      // When / Then
      assertEscapedAsTwoPasses(b);
    }
  }

  @Test
  void shouldEscapeInOnePassEveryByteValueAtEveryPlaceOfAWord() throws Exception {
    // Given: every byte value, alone or followed by continuation bytes (valid 2-, 3- and 4-byte
    // sequences and their truncated tails), at every offset of ASCII words, and at the very end
    for (int value = 0; value < 256; value++) {
      for (int at = 0; at < 17; at++) {
        for (byte[] tail :
            List.of(
                new byte[0],
                new byte[] {(byte) 0xA0},
                new byte[] {(byte) 0x90, (byte) 0x80},
                new byte[] {(byte) 0x8F, (byte) 0xBF, (byte) 0xBF})) {
          for (int after : new int[] {0, 1, 9}) {
            byte[] b = new byte[at + 1 + tail.length + after];
            java.util.Arrays.fill(b, (byte) 'q');
            b[at] = (byte) value;
            System.arraycopy(tail, 0, b, at + 1, tail.length);

            // When / Then
            assertEscapedAsTwoPasses(b);
          }
        }
      }
    }
  }

  @Test
  void shouldEscapeInOnePassLongBodiesWithRareEscapesAndFourByteSequences() throws Exception {
    // Given: a chat-sized body of text, emoji and CJK with a few escapes, then cut at every
    // length of its last 8 bytes (a capture limit that splits a sequence)
    StringBuilder body = new StringBuilder();
    Random random = new Random(5);
    while (body.length() < 20_000) {
      body.append("plain text of a prompt ".repeat(random.nextInt(4)));
      body.append(
          List.of("\"", "\\", "\n", "\u0003", "é", "中文", "\uD83D\uDE00").get(random.nextInt(7)));
    }
    byte[] whole = body.toString().getBytes(StandardCharsets.UTF_8);
    for (int cut = whole.length - 8; cut <= whole.length; cut++) {
      // When / Then
      assertEscapedAsTwoPasses(java.util.Arrays.copyOf(whole, cut));
    }
  }

  /**
   * The one-pass escape against what it replaced: the strict check ({@link Utf8#isStrict}, itself
   * checked against the strict decoder), then Jackson's escaping of the decoded text.
   */
  private void assertEscapedAsTwoPasses(byte[] b) throws Exception {
    int n = writer.escapeIfUtf8(b, 0, b.length);
    if (!Utf8.isStrict(b, 0, b.length)) {
      assertThat(n).as("bytes %s", java.util.Arrays.toString(b)).isEqualTo(-1);
      return;
    }
    byte[] quoted = Json.mapper().writeValueAsBytes(new String(b, StandardCharsets.UTF_8));
    byte[] expected = java.util.Arrays.copyOfRange(quoted, 1, quoted.length - 1);
    assertThat(n).as("bytes %s", java.util.Arrays.toString(b)).isEqualTo(expected.length);
    assertThat(java.util.Arrays.copyOf(writer.escapedBytes(), n))
        .as("bytes %s", java.util.Arrays.toString(b))
        .isEqualTo(expected);
  }

  @Test
  void shouldWriteARealSizedChatBodyAsTheMapperDoesAndReadBack() throws Exception {
    StringBuilder body = new StringBuilder("{\"model\":\"llama\",\"messages\":[");
    Random random = new Random(7);
    while (body.length() < 20_000) {
      body.append("{\"role\":\"user\",\"content\":\"line ")
          .append(random.nextInt())
          .append(" \\\"quoted\\\" é\\n\"},");
    }
    body.append("{\"role\":\"user\",\"content\":\"end\"}]}");
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    byte[] written = assertSame(bytes, false);

    RawRequestEvent back = JsonSerde.of(RawRequestEvent.class).fromBytes(written);
    assertThat(BodyEncoding.UTF_8.decode(back.body())).isEqualTo(bytes);
  }

  @Test
  void shouldWriteAMetadataOnlyEventWithItsUpstreamAsTheMapperDoes() throws Exception {
    // Given: a sampled-out request, forwarded to an engine
    PromptChunks chunks =
        new PromptChunks(
            256, 600L, List.of("0x0a1b", "0x2c3d"), "sha256_chain_64", "bytes", "chat_messages");
    ResponseInfo response =
        new ResponseInfo(200, 12.5, 3.25, new Usage(150L, 9L, 128L), "chatcmpl-2", null);
    RawRequestEvent event =
        new RawRequestEvent(
            RawRequestEvent.SCHEMA_VERSION,
            "req-2",
            1_700_000_000_456L,
            "key",
            "header:x-session-id",
            "10.0.0.2",
            "curl/8",
            null,
            "POST",
            "/v1/chat/completions",
            "llama",
            null,
            null,
            600L,
            "ab".repeat(32),
            null,
            null,
            response,
            RawRequestEvent.SAMPLED_OUT,
            chunks,
            "http://10.0.3.17:8000",
            null,
            null);

    // When
    byte[] actual =
        writer.writeMetadataOnly(
            new EventWriter.RequestFields(
                "req-2",
                1_700_000_000_456L,
                "key",
                "header:x-session-id",
                "10.0.0.2",
                "curl/8",
                null,
                "POST",
                "/v1/chat/completions",
                "llama",
                null,
                null),
            600L,
            "ab".repeat(32),
            false,
            0L,
            response,
            RawRequestEvent.SAMPLED_OUT,
            chunks,
            "http://10.0.3.17:8000");

    // Then
    assertThat(new String(actual, StandardCharsets.UTF_8))
        .isEqualTo(new String(Json.mapper().writeValueAsBytes(event), StandardCharsets.UTF_8))
        .endsWith(",\"upstream\":\"http://10.0.3.17:8000\"}");
  }

  /** Writes the event both ways, asserts the same bytes, returns them. */
  private byte[] assertSame(byte[] body, boolean full) throws Exception {
    Map<String, String> headers = new TreeMap<>();
    headers.put("user-agent", "ua \"1\"");
    headers.put("x-session-id", "s-é");
    ResponseInfo response =
        full
            ? new ResponseInfo(200, 51.234, 50.5, new Usage(10L, 20L, 4L), "chatcmpl-1", null)
            : new ResponseInfo(502, 0.125, null, null, null, "upstream_reset");
    String sha = io.prefixlog.core.text.Sha256.hex(body);
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    RawRequestEvent event =
        new RawRequestEvent(
            RawRequestEvent.SCHEMA_VERSION,
            "req-1",
            1_700_000_000_123L,
            "key",
            "header",
            full ? "10.0.0.1" : null,
            full ? "curl/8 \"x\"" : null,
            full ? headers : null,
            "POST",
            "/v1/chat/completions?x=\"1\"",
            full ? "llama" : null,
            encoded.text(),
            encoded.encoding().wireName(),
            (long) body.length,
            sha,
            full ? Boolean.TRUE : null,
            full ? body.length + 100L : null,
            response,
            null,
            null,
            full ? "http://10.0.3.17:8000" : null,
            full ? "req-1" : null,
            full ? "gw-1" : null);
    byte[] expected = Json.mapper().writeValueAsBytes(event);

    byte[] actual =
        writer.write(
            CaptureConfig.RawEventFormat.JSON,
            new EventWriter.RequestFields(
                "req-1",
                1_700_000_000_123L,
                "key",
                "header",
                full ? "10.0.0.1" : null,
                full ? "curl/8 \"x\"" : null,
                full ? headers : null,
                "POST",
                "/v1/chat/completions?x=\"1\"",
                full ? "llama" : null,
                full ? "req-1" : null,
                full ? "gw-1" : null),
            body,
            sha,
            full,
            body.length + 100L,
            response,
            full ? "http://10.0.3.17:8000" : null);

    assertThat(new String(actual, StandardCharsets.UTF_8))
        .isEqualTo(new String(expected, StandardCharsets.UTF_8));
    assertThat(actual).isEqualTo(expected);

    // and framed: the mapper's header of the same event, then the body's bytes as they are
    byte[] framed =
        writer.write(
            CaptureConfig.RawEventFormat.FRAMED,
            new EventWriter.RequestFields(
                "req-1",
                1_700_000_000_123L,
                "key",
                "header",
                full ? "10.0.0.1" : null,
                full ? "curl/8 \"x\"" : null,
                full ? headers : null,
                "POST",
                "/v1/chat/completions?x=\"1\"",
                full ? "llama" : null,
                full ? "req-1" : null,
                full ? "gw-1" : null),
            body,
            sha,
            full,
            body.length + 100L,
            response,
            full ? "http://10.0.3.17:8000" : null);
    assertThat(framed).isEqualTo(RawEventFrame.frame(event, body));
    assertThat(RawEventFrame.readAsVersion1(framed)).isEqualTo(event);
    return actual;
  }
}
