package io.prefixlog.streams.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Raw request events as a producer would write them, and chat bodies from the real corpora. */
public final class LookupInputs {
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  /** The tau-bench files do not carry the tool schemas their runs sent; these stand in. */
  private static final String AIRLINE_TOOLS =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_user_details\","
          + "\"parameters\":{\"type\":\"object\",\"properties\":{\"user_id\":{\"type\":\"string\"}},"
          + "\"required\":[\"user_id\"]}}},{\"type\":\"function\",\"function\":{\"name\":"
          + "\"get_reservation_details\",\"parameters\":{\"type\":\"object\",\"properties\":"
          + "{\"reservation_id\":{\"type\":\"string\"}},\"required\":[\"reservation_id\"]}}}]";

  private LookupInputs() {}

  public static RawRequestEvent event(
      String requestId, long ts, String session, String model, byte[] body, Usage usage) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        1,
        requestId,
        ts,
        session,
        "header:x-session-id",
        "127.0.0.1",
        "test-agent/1.0",
        Map.of("x-session-id", "conversation-" + session),
        "POST",
        "/v1/chat/completions",
        model,
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        usage == null ? null : new ResponseInfo(200, 51.5, 12.25, usage, "chatcmpl-x", null),
        null,
        null,
        null,
        null,
        null);
  }

  public static byte[] bytes(RawRequestEvent event) {
    return SERDE.toBytes(event);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The request bodies of the first {@code limit} airline runs, one list per run: one request per
   * assistant message, carrying every message before it and the tool definitions.
   */
  public static List<List<byte[]>> airlineRuns(int limit) {
    List<List<byte[]>> runs = new ArrayList<>();
    Path file = corpora().resolve("agentic/tau_bench_gpt4o_airline.jsonl");
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while (runs.size() < limit && (line = reader.readLine()) != null) {
        List<JsonNode> messages = new ArrayList<>();
        Json.mapper().readTree(line).path("messages").forEach(messages::add);
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
          if (!"assistant".equals(messages.get(i).path("role").asText())) {
            continue;
          }
          ObjectNode body = JsonNodeFactory.instance.objectNode();
          body.put("model", "gpt-4o");
          ArrayNode history = body.putArray("messages");
          messages.subList(0, i).forEach(history::add);
          body.set("tools", Json.mapper().readTree(AIRLINE_TOOLS));
          bodies.add(Json.mapper().writeValueAsBytes(body));
        }
        runs.add(bodies);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return runs;
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
