package io.prefixlog.core.chunk;

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
 * Chat request bodies of real conversations from the bundled corpora ({@code corpora/} at the
 * project root): one request per assistant message, carrying every message before it, as tools'
 * {@code ChatRequests} builds them (core cannot depend on tools).
 */
final class CorpusBodies {
  /** The tau-bench files do not carry the tool schemas their runs sent; these stand in for them. */
  static final String AIRLINE_TOOLS =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_user_details\","
          + "\"description\":\"Get the details of an user, including their reservations.\","
          + "\"parameters\":{\"type\":\"object\",\"properties\":{\"user_id\":{\"type\":\"string\","
          + "\"description\":\"The user id, such as 'sara_doe_496'.\"}},\"required\":[\"user_id\"]}}},"
          + "{\"type\":\"function\",\"function\":{\"name\":\"get_reservation_details\","
          + "\"description\":\"Get the details of a reservation.\",\"parameters\":{\"type\":\"object\","
          + "\"properties\":{\"reservation_id\":{\"type\":\"string\",\"description\":"
          + "\"The reservation id, such as '8JX2WO'.\"}},\"required\":[\"reservation_id\"]}}}]";

  private CorpusBodies() {}

  /** One conversation: its id and the request bodies of its assistant turns, in order. */
  record Conversation(String id, List<byte[]> bodies) {}

  /**
   * The first {@code limit} conversations of a corpus file.
   *
   * @param file e.g. {@code agentic/tau_bench_gpt4o_airline.jsonl}
   * @param tools a JSON array sent as every request's {@code tools}, or null
   */
  static List<Conversation> conversations(String file, int limit, String tools) {
    List<Conversation> out = new ArrayList<>();
    try (BufferedReader reader =
        Files.newBufferedReader(corpora().resolve(file), StandardCharsets.UTF_8)) {
      String line;
      while (out.size() < limit && (line = reader.readLine()) != null) {
        JsonNode conversation = Json.mapper().readTree(line);
        out.add(
            new Conversation(
                conversation.path("id").asText(), bodies(conversation, tools, turn -> null)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * The request bodies of one conversation, the system message of turn k (1-based) replaced by
   * {@code systemPrompt.apply(k)} when that is not null.
   */
  static List<byte[]> bodies(String file, String id, IntFunction<String> systemPrompt) {
    try (BufferedReader reader =
        Files.newBufferedReader(corpora().resolve(file), StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        JsonNode conversation = Json.mapper().readTree(line);
        if (id.equals(conversation.path("id").asText())) {
          return bodies(conversation, null, systemPrompt);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalArgumentException("no conversation " + id + " in " + file);
  }

  private static List<byte[]> bodies(
      JsonNode conversation, String tools, IntFunction<String> systemPrompt) {
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
      for (int j = 0; j < i; j++) {
        JsonNode message = messages.get(j);
        String replacement = systemPrompt.apply(turn);
        if (replacement != null && "system".equals(message.path("role").asText())) {
          ObjectNode system = message.deepCopy();
          system.put("content", replacement);
          message = system;
        }
        history.add(message);
      }
      try {
        if (tools != null) {
          body.set("tools", Json.mapper().readTree(tools));
        }
        body.put("max_tokens", 1024);
        bodies.add(Json.mapper().writeValueAsBytes(body));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return bodies;
  }

  /** The system message of a conversation (the tau-bench ones carry a timestamp). */
  static String systemMessage(String file, String id) {
    try (BufferedReader reader =
        Files.newBufferedReader(corpora().resolve(file), StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        JsonNode conversation = Json.mapper().readTree(line);
        if (id.equals(conversation.path("id").asText())) {
          for (JsonNode message : conversation.path("messages")) {
            if ("system".equals(message.path("role").asText())) {
              return message.path("content").asText();
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalArgumentException("no system message in " + id + " of " + file);
  }

  static Path corpora() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("corpora/SOURCES.md"))) {
        return dir.resolve("corpora");
      }
    }
    throw new IllegalStateException(
        "corpora/ not found above " + Path.of("").toAbsolutePath() + ": run from the project");
  }
}
