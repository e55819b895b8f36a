package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.schemas.request.Usage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseScannerTest {
  private static final String JSON =
      "{\"id\":\"chatcmpl-1\",\"choices\":[{\"message\":{\"content\":\"the \\\"usage\\\" is\","
          + "\"id\":\"inner\"},\"usage\":{\"prompt_tokens\":99}}],"
          + "\"usage\":{\"prompt_tokens\":120,\"total_tokens\":130,\"completion_tokens\":10,"
          + "\"prompt_tokens_details\":{\"cached_tokens\":96}}}";

  private static ResponseScanner feedInPieces(ResponseScanner scanner, String text, int piece) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i += piece) {
      scanner.feed(bytes, i, Math.min(piece, bytes.length - i));
    }
    scanner.end();
    return scanner;
  }

  @Test
  void shouldReadTopLevelIdAndUsageOfAJsonBodySplitAtEveryByte() {
    for (int piece = 1; piece <= 7; piece++) {
      // When
      ResponseScanner scanner =
          feedInPieces(ResponseScanner.forResponse("application/json", null), JSON, piece);

      // Then
      assertThat(scanner.id()).isEqualTo("chatcmpl-1");
      assertThat(scanner.usage()).isEqualTo(new Usage(120L, 10L, 96L));
      assertThat(scanner.unreadable()).isFalse();
    }
  }

  @Test
  void shouldTakeTheFinalUsageChunkOfAStreamAcrossLineEndingsAndSplits() {
    String stream =
        "data: {\"id\":\"chatcmpl-2\",\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":null}\r\n\r\n"
            + ": keep-alive comment\n\n"
            + "data: {\"id\":\"chatcmpl-2\",\"choices\":[{\"delta\":{\"content\":\"b\"}}],\"usage\":null}\n\n"
            + "data:{\"id\":\"chatcmpl-2\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
            + "\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\r\r"
            + "data: [DONE]\n\n";
    for (int piece = 1; piece <= 5; piece++) {
      // When
      ResponseScanner scanner =
          feedInPieces(
              ResponseScanner.forResponse("text/event-stream; charset=utf-8", null), stream, piece);

      // Then
      assertThat(scanner.id()).isEqualTo("chatcmpl-2");
      assertThat(scanner.usage()).isEqualTo(new Usage(5L, 2L, 4L));
    }
  }

  @Test
  void shouldReportNoUsageForAStreamWithoutAUsageChunk() {
    // When
    ResponseScanner scanner =
        feedInPieces(
            ResponseScanner.forResponse("text/event-stream", null),
            "data: {\"id\":\"c\",\"usage\":null}\n\ndata: [DONE]\n\n",
            3);

    // Then
    assertThat(scanner.id()).isEqualTo("c");
    assertThat(scanner.usage()).isNull();
  }

  @Test
  void shouldReadNothingFromCompressedOrOtherBodies() {
    assertThat(ResponseScanner.forResponse("application/json", "gzip"))
        .isInstanceOf(ResponseScanner.None.class);
    assertThat(ResponseScanner.forResponse("text/plain", null))
        .isInstanceOf(ResponseScanner.None.class);
    assertThat(ResponseScanner.forResponse(null, null)).isInstanceOf(ResponseScanner.None.class);
  }

  @Test
  void shouldCountABrokenJsonBodyAsUnreadable() {
    // When
    ResponseScanner scanner =
        feedInPieces(ResponseScanner.forResponse("application/json", null), "{\"id\":\"x\",]", 4);

    // Then
    assertThat(scanner.unreadable()).isTrue();
    assertThat(scanner.id()).isEqualTo("x");
  }

  @Test
  void shouldPassOverAnOverlongSseLineAndKeepReading() {
    // Given: one line above the bound, then a usage chunk
    StringBuilder stream = new StringBuilder("data: {\"pad\":\"");
    stream.append("x".repeat(ResponseScanner.MAX_LINE_BYTES));
    stream.append(
        "\"}\n\ndata: {\"id\":\"i\",\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n");

    // When
    ResponseScanner scanner =
        feedInPieces(
            ResponseScanner.forResponse("text/event-stream", null), stream.toString(), 65536);

    // Then
    assertThat(scanner.unreadable()).isTrue();
    assertThat(scanner.usage()).isEqualTo(new Usage(1L, 1L, null));
  }
}
