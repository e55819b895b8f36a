package io.prefixlog.tools.corpus;

import com.fasterxml.jackson.databind.JsonNode;
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

/**
 * Reads a corpus file: one conversation per line, {@code {"id":…, "messages":[…], "meta":{…}}} (the
 * format of {@code corpora/SOURCES.md}).
 */
public final class CorpusFile {
  private CorpusFile() {}

  /**
   * Reads every conversation of the file.
   *
   * @throws IllegalArgumentException naming the file and line when a line is not a conversation
   */
  public static List<Conversation> read(Path file) {
    List<Conversation> conversations = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int lineNumber = 0;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        conversations.add(parse(line, file, lineNumber));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read corpus " + file, e);
    }
    return conversations;
  }

  private static Conversation parse(String line, Path file, int lineNumber) {
    JsonNode node;
    try {
      node = Json.mapper().readTree(line);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ":" + lineNumber + ": not JSON", e);
    }
    JsonNode id = node.path("id");
    JsonNode messages = node.path("messages");
    if (!id.isTextual() || !messages.isArray()) {
      throw new IllegalArgumentException(
          file + ":" + lineNumber + ": expected {\"id\": string, \"messages\": [...]}");
    }
    List<ObjectNode> list = new ArrayList<>();
    for (JsonNode message : messages) {
      if (!message.isObject() || !message.path("role").isTextual()) {
        throw new IllegalArgumentException(
            file + ":" + lineNumber + ": every message needs a string \"role\"");
      }
      list.add((ObjectNode) message);
    }
    return new Conversation(id.asText(), list);
  }
}
