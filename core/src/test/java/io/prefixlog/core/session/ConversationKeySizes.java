package io.prefixlog.core.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * A quick harness, not a test: what header-less traffic through one gateway costs in stored bytes
 * under one key per gateway (the fallback key) and under conversation keys, both encoded by {@link
 * TurnEncoder} with the default settings, as the stream app encodes them. Stored bytes are each
 * keyframe's body and each delta's ops as JSON. Four workloads from the bundled agentic corpora:
 * the 10 longest conversations of each file interleaved turn by turn; one conversation whose client
 * rewrites the time in its system prompt every turn; 50 one-shot requests sharing a system prompt.
 *
 * <pre>
 * mvn -B -o -q test-compile -pl core -am
 * java -cp schemas/target/classes:core/target/classes:core/target/test-classes:$(cat core/cp.txt) \
 *     io.prefixlog.core.session.ConversationKeySizes
 * </pre>
 */
public final class ConversationKeySizes {
  private static final SessionKeyDeriver DERIVER =
      new SessionKeyDeriver(
          SessionKeyDeriver.DEV_SECRET.getBytes(StandardCharsets.UTF_8),
          SessionKeyDeriver.DEFAULT_HEADERS);
  private static final TurnEncoder ENCODER = new TurnEncoder(EncoderSettings.DEFAULTS);
  private static final String AIRLINE = "agentic/tau_bench_gpt4o_airline.jsonl";
  private static final String SWE = "agentic/swe_agent_trajectories.jsonl";

  private ConversationKeySizes() {}

  public static void main(String[] args) {
    for (String file : List.of(AIRLINE, SWE)) {
      List<JsonNode> longest = new ArrayList<>(conversations(file));
      longest.sort(Comparator.comparingInt((JsonNode c) -> -c.path("messages").size()));
      List<List<byte[]>> turns = new ArrayList<>();
      for (JsonNode conversation : longest.subList(0, 10)) {
        turns.add(bodies(conversation, turn -> null));
      }
      compare(file + ": the 10 longest conversations interleaved", interleave(turns));
    }
    JsonNode first = conversations(AIRLINE).get(0);
    String system = first.path("messages").get(0).path("content").asText();
    compare(
        AIRLINE + " conversation 0, the time in its system prompt rewritten every turn",
        bodies(
            first,
            turn ->
                system.replace(
                    "2024-05-15 15:00:00 EST",
                    String.format(
                        Locale.ROOT, "2024-05-15 15:%02d:%02d EST", turn % 60, (turn * 37) % 60))));
    List<byte[]> oneShot = new ArrayList<>();
    for (JsonNode conversation : conversations(AIRLINE).subList(0, 50)) {
      oneShot.add(bodies(conversation, turn -> null).get(0));
    }
    compare(AIRLINE + ": 50 one-shot requests, one system prompt, 50 first messages", oneShot);
  }

  private static void compare(String name, List<byte[]> bodies) {
    System.out.println(name + ":");
    System.out.println("  one key per gateway (fallback): " + encode(bodies, false));
    System.out.println("  conversation keys:              " + encode(bodies, true));
  }

  private static final class Session {
    SessionState state = SessionState.newChain("0a1b2c3d");
    final Map<Long, byte[]> stored = new HashMap<>();
  }

  private static String encode(List<byte[]> bodies, boolean conversationKeys) {
    Map<String, Session> sessions = new HashMap<>();
    int keyframes = 0;
    long stored = 0;
    long total = 0;
    long now = 1_000;
    for (byte[] body : bodies) {
      String key =
          conversationKeys
              ? DERIVER
                  .derive(Map.of(), BodyFields.read(body), "10.0.0.1", "OpenAI/Python 1.84.0")
                  .key()
              : "gateway";
      Session session = sessions.computeIfAbsent(key, k -> new Session());
      EncodedTurn turn = ENCODER.encode(session.state, body, true, session.stored::get, now++);
      if (turn.storeBody()) {
        session.stored.put(turn.seq(), body);
      }
      turn.evictedSeqs().forEach(session.stored::remove);
      session.state = turn.newState();
      total += body.length;
      if (turn.isKeyframe()) {
        keyframes++;
        stored += body.length;
      } else {
        try {
          stored += Json.mapper().writeValueAsBytes(turn.delta().ops()).length;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return String.format(
        Locale.ROOT,
        "%d turns, %d keys, %d keyframes, %,d of %,d body bytes stored (%.1f %%)",
        bodies.size(),
        sessions.size(),
        keyframes,
        stored,
        total,
        100.0 * stored / total);
  }

  private static List<byte[]> interleave(List<List<byte[]>> conversations) {
    List<byte[]> out = new ArrayList<>();
    for (int turn = 0; ; turn++) {
      boolean any = false;
      for (List<byte[]> conversation : conversations) {
        if (turn < conversation.size()) {
          out.add(conversation.get(turn));
          any = true;
        }
      }
      if (!any) {
        return out;
      }
    }
  }

  /** One request per assistant message, its system message replaced when the function says so. */
  private static List<byte[]> bodies(JsonNode conversation, IntFunction<String> system) {
    List<JsonNode> messages = new ArrayList<>();
    conversation.path("messages").forEach(messages::add);
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      if (!"assistant".equals(messages.get(i).path("role").asText())) {
        continue;
      }
      String replacement = system.apply(out.size() + 1);
      ObjectNode body = JsonNodeFactory.instance.objectNode();
      body.put("model", "prefixlog-demo");
      ArrayNode history = body.putArray("messages");
      for (JsonNode message : messages.subList(0, i)) {
        if (replacement != null && "system".equals(message.path("role").asText())) {
          message = ((ObjectNode) message.deepCopy()).put("content", replacement);
        }
        history.add(message);
      }
      body.put("max_tokens", 1024);
      try {
        out.add(Json.mapper().writeValueAsBytes(body));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  private static List<JsonNode> conversations(String file) {
    List<JsonNode> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(corpora().resolve(file), StandardCharsets.UTF_8)) {
        out.add(Json.mapper().readTree(line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
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
