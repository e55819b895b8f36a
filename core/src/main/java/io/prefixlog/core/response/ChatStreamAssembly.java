package io.prefixlog.core.response;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Assembles an OpenAI-style streamed completion (server-sent events of {@code
 * chat.completion.chunk} or {@code text_completion} objects, as vLLM and OpenAI send them) into the
 * completion a client's SDK assembles from it, in the shape of the same request answered without
 * streaming.
 *
 * <p>The rules are the OpenAI SDKs' (the Node SDK's {@code ChatCompletionStream}): the top-level
 * fields of the last chunk that has them win ({@code usage} comes in the final chunk); choices are
 * merged by {@code index}; {@code content}, {@code refusal} and a completion's {@code text} are
 * concatenated; tool calls are merged by their {@code index}, {@code id}, {@code type} and the
 * function's {@code name} set when sent, its {@code arguments} concatenated; {@code
 * logprobs.content} (and a completion's {@code tokens}, {@code token_logprobs}, {@code
 * top_logprobs}, {@code text_offset}) appended; the last {@code finish_reason} sent wins. One
 * deliberate difference: the reasoning text that vLLM streams in pieces ({@code reasoning_content},
 * {@code reasoning}) is concatenated, where the SDK, which does not know these fields, keeps the
 * last piece. Other delta fields take their last value, as in the SDK.
 *
 * <p>Fed the bytes as they arrive, split anywhere. An event that is not JSON is counted and passed
 * over; the assembly says whether the stream ended with {@code [DONE]} and whether every choice has
 * a {@code finish_reason}, so that a stream cut off or failed mid-way is kept as far as it went and
 * marked. It holds the assembly and the line being read in memory, so the caller bounds what it
 * feeds, as the capture bounds a body. Not thread-safe.
 */
public final class ChatStreamAssembly {
  /** Delta fields that carry text in pieces: concatenated. */
  private static final Set<String> CONCATENATED =
      Set.of("content", "refusal", "reasoning_content", "reasoning");

  /** A completion's logprobs arrays, appended chunk after chunk. */
  private static final Set<String> APPENDED_LOGPROBS =
      Set.of("content", "refusal", "tokens", "token_logprobs", "top_logprobs", "text_offset");

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private final StringBuilder data = new StringBuilder();
  private final ObjectNode top = NODES.objectNode();
  private final Map<Integer, ObjectNode> choices = new TreeMap<>();

  /**
   * The text fields gathered so far, by the node that will hold each: written into the nodes once,
   * at {@link #finish}, so that a long answer's thousands of pieces cost one copy, not one each.
   */
  private final Map<ObjectNode, Map<String, StringBuilder>> texts = new IdentityHashMap<>();

  private boolean sawData;
  private boolean done;
  private boolean text;
  private int chunks;
  private int malformed;

  /** What the stream assembled to, and how it ended. */
  public record Assembled(byte[] json, boolean done, boolean finished, int chunks, int malformed) {
    /** Whether the stream ended as a complete one does: {@code [DONE]}, every choice finished. */
    public boolean complete() {
      return done && finished;
    }
  }

  /** Feeds the next bytes of the stream. */
  public void accept(byte[] bytes, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      byte b = bytes[i];
      if (b == '\n') {
        line(line.toString(StandardCharsets.UTF_8));
        line.reset();
      } else {
        line.write(b);
      }
    }
  }

  /** The assembly of everything fed: a stream without its last line break ends that line here. */
  public Assembled finish() {
    if (line.size() > 0) {
      line(line.toString(StandardCharsets.UTF_8));
      line.reset();
    }
    dispatch();
    texts.forEach(
        (node, fields) -> fields.forEach((name, value) -> node.put(name, value.toString())));
    texts.clear();
    ObjectNode out = NODES.objectNode();
    copyIfPresent("id", out);
    out.put("object", text ? "text_completion" : "chat.completion");
    copyIfPresent("created", out);
    copyIfPresent("model", out);
    ArrayNode list = out.putArray("choices");
    boolean finished = !choices.isEmpty();
    for (ObjectNode choice : choices.values()) {
      list.add(choice);
      finished &= choice.hasNonNull("finish_reason");
    }
    for (Map.Entry<String, JsonNode> field : top.properties()) {
      if (!out.has(field.getKey()) && !field.getKey().equals("object")) {
        out.set(field.getKey(), field.getValue());
      }
    }
    return new Assembled(Json.treeBytes(out), done, finished, chunks, malformed);
  }

  private void copyIfPresent(String field, ObjectNode out) {
    if (top.has(field)) {
      out.set(field, top.get(field));
    }
  }

  /** One line of the event stream: {@code data:} lines gather, an empty line ends the event. */
  private void line(String raw) {
    String l = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
    if (l.isEmpty()) {
      dispatch();
    } else if (l.startsWith("data:")) {
      String value = l.substring(l.startsWith("data: ") ? 6 : 5);
      if (sawData) {
        data.append('\n');
      }
      data.append(value);
      sawData = true;
    }
    // Comments (":"), event:, id: and retry: lines name nothing a completion holds.
  }

  private void dispatch() {
    if (!sawData) {
      return;
    }
    String payload = data.toString();
    data.setLength(0);
    sawData = false;
    if (payload.strip().equals("[DONE]")) {
      done = true;
      return;
    }
    JsonNode chunk;
    try {
      chunk = Json.mapper().readTree(payload);
    } catch (JsonProcessingException e) {
      malformed++;
      return;
    }
    if (!(chunk instanceof ObjectNode object)) {
      malformed++;
      return;
    }
    chunks++;
    merge(object);
  }

  private void merge(ObjectNode chunk) {
    if ("text_completion".equals(chunk.path("object").asText())) {
      text = true;
    }
    for (Map.Entry<String, JsonNode> field : chunk.properties()) {
      if (!field.getKey().equals("choices")) {
        top.set(field.getKey(), field.getValue());
      }
    }
    for (JsonNode delta : chunk.path("choices")) {
      if (delta instanceof ObjectNode choiceDelta) {
        mergeChoice(choiceDelta);
      }
    }
  }

  private void mergeChoice(ObjectNode delta) {
    int index = delta.path("index").asInt(0);
    ObjectNode choice =
        choices.computeIfAbsent(
            index,
            i -> {
              ObjectNode c = NODES.objectNode();
              c.put("index", i);
              if (!text) {
                c.putObject("message");
              }
              c.putNull("logprobs");
              c.putNull("finish_reason");
              return c;
            });
    for (Map.Entry<String, JsonNode> field : delta.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      switch (name) {
        case "index" -> {}
        case "delta" -> {
          if (value instanceof ObjectNode message) {
            mergeMessage((ObjectNode) choice.get("message"), message);
          }
        }
        case "text" -> concatenate(choice, name, value);
        case "finish_reason" -> {
          if (!value.isNull()) {
            choice.set(name, value);
          }
        }
        case "logprobs" -> mergeLogprobs(choice, value);
        default -> choice.set(name, value);
      }
    }
  }

  private void mergeMessage(ObjectNode message, ObjectNode delta) {
    for (Map.Entry<String, JsonNode> field : delta.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.equals("tool_calls")) {
        mergeToolCalls(message, value);
      } else if (CONCATENATED.contains(name)) {
        concatenate(message, name, value);
      } else if (name.equals("role")) {
        if (!value.isNull()) {
          message.set(name, value);
        }
      } else {
        message.set(name, value);
      }
    }
  }

  private void mergeToolCalls(ObjectNode message, JsonNode deltas) {
    if (!deltas.isArray() || deltas.isEmpty()) {
      return;
    }
    ArrayNode calls =
        message.get("tool_calls") instanceof ArrayNode existing
            ? existing
            : message.putArray("tool_calls");
    for (JsonNode delta : deltas) {
      int index = delta.path("index").asInt(calls.size());
      while (calls.size() <= index) {
        calls.addObject();
      }
      ObjectNode call = (ObjectNode) calls.get(index);
      for (Map.Entry<String, JsonNode> field : delta.properties()) {
        String name = field.getKey();
        JsonNode value = field.getValue();
        if (name.equals("index")) {
          continue;
        }
        if (name.equals("function") && value instanceof ObjectNode fn) {
          ObjectNode function =
              call.get("function") instanceof ObjectNode existing
                  ? existing
                  : call.putObject("function").put("name", "").put("arguments", "");
          if (fn.hasNonNull("name")) {
            function.set("name", fn.get("name"));
          }
          concatenate(function, "arguments", fn.path("arguments"));
        } else if (!value.isNull()) {
          call.set(name, value);
        }
      }
    }
  }

  private static void mergeLogprobs(ObjectNode choice, JsonNode logprobs) {
    if (!(logprobs instanceof ObjectNode delta)) {
      return;
    }
    if (!(choice.get("logprobs") instanceof ObjectNode kept)) {
      choice.set("logprobs", delta.deepCopy());
      return;
    }
    for (Map.Entry<String, JsonNode> field : delta.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (APPENDED_LOGPROBS.contains(name) && value.isArray()) {
        if (kept.get(name) instanceof ArrayNode list) {
          list.addAll((ArrayNode) value);
        } else {
          kept.set(name, value.deepCopy());
        }
      } else if (!value.isNull()) {
        kept.set(name, value);
      }
    }
  }

  /** Appends a text piece to {@code field}; a null or absent piece changes nothing. */
  private void concatenate(ObjectNode into, String field, JsonNode piece) {
    if (piece == null || !piece.isTextual()) {
      return;
    }
    Map<String, StringBuilder> fields = texts.computeIfAbsent(into, n -> new LinkedHashMap<>());
    StringBuilder text = fields.get(field);
    if (text == null) {
      JsonNode before = into.get(field);
      text = new StringBuilder(before != null && before.isTextual() ? before.asText() : "");
      fields.put(field, text);
      // Holds the field's place in the node's order until the text is written at the end.
      into.put(field, "");
    }
    text.append(piece.asText());
  }
}
