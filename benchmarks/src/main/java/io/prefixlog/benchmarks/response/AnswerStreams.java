package io.prefixlog.benchmarks.response;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A corpus's assistant message as vLLM streams it to a client that asked for {@code stream: true}
 * and {@code stream_options.include_usage}: a chunk with the role, one {@code
 * chat.completion.chunk} per token of the content and of each tool call's arguments (the first
 * chunk of a call carries its id, type and name), a chunk with the finish reason, one with the
 * usage and no choices, then {@code [DONE]}. Each chunk is an SSE event of its own ({@code data: …}
 * and a blank line), its JSON without spaces, as vLLM writes it.
 *
 * <p>Tokens are pieces of about four characters, as English text averages under the BPE
 * vocabularies of today's models: a word with its leading space, cut into pieces of at most four
 * characters. The figures depend on the count of chunks, not on where exactly they are cut.
 */
final class AnswerStreams {
  private static final Pattern WORD = Pattern.compile("\\s*\\S+|\\s+");
  private static final int TOKEN_CHARS = 4;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private AnswerStreams() {}

  /** The SSE bytes of {@code message} (an assistant message of the corpora) as vLLM streams it. */
  static byte[] of(ObjectNode message, String id, String model) {
    Chunks chunks = new Chunks(id, model);
    chunks.delta(NODES.objectNode().put("role", "assistant").put("content", ""));
    int tokens = 0;
    for (String token : tokens(message.path("content").asText(""))) {
      chunks.delta(NODES.objectNode().put("content", token));
      tokens++;
    }
    int index = 0;
    for (JsonNode call : message.path("tool_calls")) {
      ObjectNode first = NODES.objectNode();
      ObjectNode head = first.putArray("tool_calls").addObject().put("index", index);
      head.put("id", call.path("id").asText()).put("type", "function");
      head.putObject("function")
          .put("name", call.path("function").path("name").asText())
          .put("arguments", "");
      chunks.delta(first);
      for (String token : tokens(call.path("function").path("arguments").asText(""))) {
        ObjectNode piece = NODES.objectNode();
        piece
            .putArray("tool_calls")
            .addObject()
            .put("index", index)
            .putObject("function")
            .put("arguments", token);
        chunks.delta(piece);
        tokens++;
      }
      index++;
    }
    chunks.finish(index > 0 ? "tool_calls" : "stop");
    chunks.usage(tokens);
    return chunks.bytes();
  }

  /** {@code text} cut into tokens of at most {@link #TOKEN_CHARS} characters. */
  static List<String> tokens(String text) {
    List<String> tokens = new ArrayList<>();
    Matcher words = WORD.matcher(text);
    while (words.find()) {
      String word = words.group();
      int at = 0;
      while (at < word.length()) {
        int end = Math.min(word.length(), at + TOKEN_CHARS);
        // Never between the two halves of a character outside the BMP (an emoji).
        if (end < word.length() && Character.isLowSurrogate(word.charAt(end))) {
          end++;
        }
        tokens.add(word.substring(at, end));
        at = end;
      }
    }
    return tokens;
  }

  /** The events of one stream, as they are written. */
  private static final class Chunks {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final String id;
    private final String model;

    Chunks(String id, String model) {
      this.id = id;
      this.model = model;
    }

    void delta(ObjectNode delta) {
      ObjectNode choice = NODES.objectNode().put("index", 0);
      choice.set("delta", delta);
      choice.putNull("logprobs");
      choice.putNull("finish_reason");
      event(chunk().set("choices", NODES.arrayNode().add(choice)));
    }

    void finish(String reason) {
      ObjectNode choice = NODES.objectNode().put("index", 0);
      choice.putObject("delta");
      choice.putNull("logprobs");
      choice.put("finish_reason", reason);
      event(chunk().set("choices", NODES.arrayNode().add(choice)));
    }

    void usage(int completionTokens) {
      ObjectNode chunk = chunk();
      chunk.putArray("choices");
      chunk
          .putObject("usage")
          .put("prompt_tokens", 0)
          .put("total_tokens", completionTokens)
          .put("completion_tokens", completionTokens);
      event(chunk);
    }

    byte[] bytes() {
      out.writeBytes("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
      return out.toByteArray();
    }

    private ObjectNode chunk() {
      return NODES
          .objectNode()
          .put("id", id)
          .put("object", "chat.completion.chunk")
          .put("created", 1_750_000_000L)
          .put("model", model);
    }

    private void event(JsonNode chunk) {
      out.writeBytes("data: ".getBytes(StandardCharsets.UTF_8));
      out.writeBytes(Json.treeBytes(chunk));
      out.writeBytes("\n\n".getBytes(StandardCharsets.UTF_8));
    }
  }
}
