package io.prefixlog.core.rebuild;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Request bodies of real conversations from the bundled corpora: one chat request per assistant
 * turn, each carrying every message before it (as tools' ChatRequests renders them; core cannot
 * depend on tools).
 */
final class CorpusTurns {
  private CorpusTurns() {}

  /**
   * The request bodies of one conversation.
   *
   * @param file corpus file under {@code corpora/}, e.g. {@code
   *     agentic/tau_bench_gpt4o_airline.jsonl}
   * @param id the conversation id
   * @param systemPrompt for turn k (1-based), replaces the conversation's system message, or is
   *     prepended when it has none; a function so that a test can change a timestamp per turn
   */
  static List<byte[]> bodies(String file, String id, IntFunction<String> systemPrompt) {
    JsonNode conversation = conversation(file, id);
    List<JsonNode> messages = new ArrayList<>();
    conversation.path("messages").forEach(messages::add);
    List<byte[]> bodies = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      if (!"assistant".equals(messages.get(i).path("role").asText())) {
        continue;
      }
      int turn = bodies.size() + 1;
      ObjectNode body = JsonNodeFactory.instance.objectNode();
      body.put("model", "prefixlog-demo");
      ArrayNode history = body.putArray("messages");
      ObjectNode system = history.addObject();
      system.put("role", "system");
      system.put("content", systemPrompt.apply(turn));
      for (int j = 0; j < i; j++) {
        if (!"system".equals(messages.get(j).path("role").asText())) {
          history.add(messages.get(j));
        }
      }
      body.put("max_tokens", 1024);
      try {
        bodies.add(Json.mapper().writeValueAsBytes(body));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return bodies;
  }

  /** The system message of a conversation (the tau-bench ones carry a timestamp). */
  static String systemMessage(String file, String id) {
    for (JsonNode message : conversation(file, id).path("messages")) {
      if ("system".equals(message.path("role").asText())) {
        return message.path("content").asText();
      }
    }
    throw new IllegalArgumentException(id + " has no system message");
  }

  private static JsonNode conversation(String file, String id) {
    Path path = corpora().resolve(file);
    try (BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        JsonNode node = Json.mapper().readTree(line);
        if (id.equals(node.path("id").asText())) {
          return node;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalArgumentException("no conversation " + id + " in " + path);
  }

  private static Path corpora() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("corpora/SOURCES.md"))) {
        return dir.resolve("corpora");
      }
    }
    throw new IllegalStateException(
        "corpora/ not found above " + Path.of("").toAbsolutePath() + ": run from the project");
  }
}
