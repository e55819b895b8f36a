package io.prefixlog.core.response;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChatStreamAssemblyTest {
  private static final String HEAD =
      "\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1750000000,"
          + "\"model\":\"m\"";

  @Test
  void shouldAssembleAStreamedAnswerIntoTheCompletionTheSdkBuilds() throws Exception {
    // Given: vLLM's shape, with usage in a final chunk without choices
    String stream =
        chunk(
                "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}")
            + chunk("{\"index\":0,\"delta\":{\"content\":\"Héllo\"},\"finish_reason\":null}")
            + chunk("{\"index\":0,\"delta\":{\"content\":\", wörld 😀\"},\"finish_reason\":null}")
            + chunk("{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}")
            + "data: {"
            + HEAD
            + ",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":4}}\n\n"
            + "data: [DONE]\n\n";

    // When: fed in pieces of 3 bytes, which split characters and lines
    ChatStreamAssembly.Assembled assembled = feed(stream, 3);

    // Then: the non-streamed shape, complete
    assertThat(tree(assembled))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1750000000,"
                        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                        + "\"assistant\",\"content\":\"Héllo, wörld 😀\"},\"logprobs\":null,"
                        + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":7,"
                        + "\"completion_tokens\":4}}"));
    assertThat(assembled.complete()).isTrue();
    assertThat(assembled.chunks()).isEqualTo(5);
    assertThat(assembled.malformed()).isZero();
  }

  @Test
  void shouldMergeToolCallsByIndexAndConcatenateTheirArguments() throws Exception {
    // Given: two calls, the second begun before the first's arguments end
    String stream =
        chunk(
                "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,"
                    + "\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read\","
                    + "\"arguments\":\"\"}}]}}")
            + chunk(
                "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                    + "{\"arguments\":\"{\\\"path\\\":\"}}]}}")
            + chunk(
                "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\","
                    + "\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}}")
            + chunk(
                "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                    + "{\"arguments\":\"\\\"a.txt\\\"}\"}}]}}")
            + chunk("{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}")
            + "data: [DONE]\n\n";

    // When
    JsonNode message = tree(feed(stream, 7)).path("choices").get(0).path("message");

    // Then
    assertThat(message.path("tool_calls"))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    "[{\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read\","
                        + "\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}},{\"id\":\"call_b\","
                        + "\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":"
                        + "\"{}\"}}]"));
  }

  @Test
  void shouldConcatenateTheReasoningAndAppendTheLogprobs() throws Exception {
    // Given
    String stream =
        chunk(
                "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Think\"},"
                    + "\"logprobs\":{\"content\":[{\"token\":\"Think\",\"logprob\":-0.5}]}}")
            + chunk(
                "{\"index\":0,\"delta\":{\"reasoning_content\":\"ing.\"},"
                    + "\"logprobs\":{\"content\":[{\"token\":\"ing.\",\"logprob\":-0.25}]}}")
            + chunk(
                "{\"index\":0,\"delta\":{\"content\":\"Yes\"},\"finish_reason\":\"stop\","
                    + "\"logprobs\":{\"content\":[{\"token\":\"Yes\",\"logprob\":0.0}]}}")
            + "data: [DONE]\n\n";

    // When
    JsonNode choice = tree(feed(stream, 1)).path("choices").get(0);

    // Then
    assertThat(choice.path("message").path("reasoning_content").asText()).isEqualTo("Thinking.");
    assertThat(choice.path("message").path("content").asText()).isEqualTo("Yes");
    assertThat(choice.path("logprobs").path("content").findValuesAsText("token"))
        .containsExactly("Think", "ing.", "Yes");
  }

  @Test
  void shouldKeepACutOffStreamAsFarAsItWentAndSaySo() throws Exception {
    // Given: no finish reason, no [DONE], the last line cut in half, one event that is not JSON
    String stream =
        chunk("{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Par\"}}")
            + "data: {not json\n\n"
            + chunk("{\"index\":0,\"delta\":{\"content\":\"tial\"}}")
            + "data: {\"id\":\"chatcmpl-1\",\"choi";

    // When
    ChatStreamAssembly.Assembled assembled = feed(stream, 64);

    // Then
    assertThat(tree(assembled).path("choices").get(0).path("message").path("content").asText())
        .isEqualTo("Partial");
    assertThat(assembled.done()).isFalse();
    assertThat(assembled.finished()).isFalse();
    assertThat(assembled.complete()).isFalse();
    assertThat(assembled.malformed()).isEqualTo(2);
  }

  @Test
  void shouldAssembleATextCompletionStream() throws Exception {
    // Given: /v1/completions, two choices (n=2) interleaved, with CRLF line ends
    String head = "\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\"";
    String stream =
        List.of(
                    "{\"index\":0,\"text\":\"a\",\"logprobs\":null,\"finish_reason\":null}",
                    "{\"index\":1,\"text\":\"x\",\"logprobs\":null,\"finish_reason\":null}",
                    "{\"index\":0,\"text\":\"b\",\"logprobs\":null,\"finish_reason\":\"length\"}",
                    "{\"index\":1,\"text\":\"y\",\"logprobs\":null,\"finish_reason\":\"stop\"}")
                .stream()
                .map(c -> "data: {" + head + ",\"choices\":[" + c + "]}\r\n\r\n")
                .reduce("", String::concat)
            + "data: [DONE]\r\n\r\n";

    // When
    JsonNode completion = tree(feed(stream, 5));

    // Then
    assertThat(completion.path("object").asText()).isEqualTo("text_completion");
    assertThat(completion.path("choices").findValuesAsText("text")).containsExactly("ab", "xy");
    assertThat(completion.path("choices").findValuesAsText("finish_reason"))
        .containsExactly("length", "stop");
  }

  @Test
  void shouldGatherThousandsOfPiecesInOrder() throws Exception {
    // Given: 20,000 one-character pieces
    StringBuilder stream = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      stream.append(
          chunk("{\"index\":0,\"delta\":{\"content\":\"" + (char) ('a' + i % 26) + "\"}}"));
    }

    // When
    String content =
        tree(feed(stream.toString(), 4096))
            .path("choices")
            .get(0)
            .path("message")
            .path("content")
            .asText();

    // Then
    assertThat(content).hasSize(20_000).startsWith("abcdefghijklmnopqrstuvwxyzabc");
    assertThat(content.charAt(19_999)).isEqualTo((char) ('a' + 19_999 % 26));
  }

  private static String chunk(String choice) {
    return "data: {" + HEAD + ",\"choices\":[" + choice + "]}\n\n";
  }

  private static ChatStreamAssembly.Assembled feed(String stream, int piece) {
    byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
    ChatStreamAssembly assembly = new ChatStreamAssembly();
    for (int at = 0; at < bytes.length; at += piece) {
      assembly.accept(bytes, at, Math.min(piece, bytes.length - at));
    }
    return assembly.finish();
  }

  private static JsonNode tree(ChatStreamAssembly.Assembled assembled) throws Exception {
    return Json.mapper().readTree(assembled.json());
  }
}
