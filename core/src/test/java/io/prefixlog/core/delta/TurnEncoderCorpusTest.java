package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * {@link TurnEncoder} over real conversations from the bundled corpora ({@code corpora/} at the
 * project root), each turn rendered as the chat request its assistant message answered (as tools'
 * {@code ChatRequests} renders them: core cannot depend on tools, so the JSONL is read here).
 */
class TurnEncoderCorpusTest {
  /** Conversations taken from the start of each file; all of them for the small agentic file. */
  private static final Map<String, Integer> FILES =
      Map.of(
          "chat/hh_rlhf_helpful_base_test.jsonl", 40,
          "chat/oasst_en100_threads.jsonl", 20,
          "agentic/tau_bench_gpt4o_airline.jsonl", 8,
          "agentic/swe_agent_trajectories.jsonl", Integer.MAX_VALUE);

  private static final String SYSTEM_PROMPT = "You are a helpful, honest and harmless assistant.";

  private final TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);

  @Test
  void shouldRebuildEveryTurnOfRealConversationsByteForByte() {
    // Given
    int expectedTurns = 0;
    int rebuiltTurns = 0;
    for (Map.Entry<String, Integer> file : FILES.entrySet()) {
      for (JsonNode conversation : conversations(file.getKey(), file.getValue())) {
        List<byte[]> bodies = render(conversation, turn -> null);
        expectedTurns += bodies.size();

        // When
        List<EncodedTurn> turns = encodeSession(bodies);

        // Then
        rebuiltTurns += assertEveryTurnRebuilds(conversation, bodies, turns);
      }
    }
    assertThat(expectedTurns).isGreaterThan(300);
    assertThat(rebuiltTurns).isEqualTo(expectedTurns);
  }

  @Test
  void shouldEncodeATurnAppendedToHistoryAsADeltaAgainstThePreviousTurn() {
    for (Map.Entry<String, Integer> file : FILES.entrySet()) {
      for (JsonNode conversation : conversations(file.getKey(), Math.min(file.getValue(), 5))) {
        // Given: the conversation's requests, then one more with a user message appended
        List<JsonNode> history = historyBeforeLastAssistant(conversation, null);
        ObjectNode question = JsonNodeFactory.instance.objectNode();
        question.put("role", "user");
        question.put("content", "Thanks! One more question: what would you do differently?");
        List<byte[]> bodies = new ArrayList<>(render(conversation, turn -> null));
        byte[] previous = body(history);
        history.add(question);
        byte[] appended = body(history);
        bodies.add(appended);

        // When
        List<EncodedTurn> turns = encodeSession(bodies);

        // Then: copy(everything up to the last message) · insert(the message) · copy(the end)
        EncodedTurn last = turns.get(turns.size() - 1);
        String before = new String(previous, StandardCharsets.UTF_8);
        int messagesEnd = before.lastIndexOf("],\"temperature\"");
        String insert = "," + json(question);
        assertThat(last.isKeyframe()).as(conversation.path("id").asText()).isFalse();
        assertThat(last.base().seq()).isEqualTo(last.seq() - 1);
        assertThat(last.base().sha256()).isEqualTo(Sha256.hex(previous));
        assertThat(last.delta().ops())
            .containsExactly(
                new DeltaOp.Copy(0, before.codePointCount(0, messagesEnd)),
                new DeltaOp.Insert(insert),
                new DeltaOp.Copy(
                    before.codePointCount(0, messagesEnd),
                    before.codePointCount(messagesEnd, before.length())));
        assertThat(last.delta().insertedBytes())
            .isEqualTo(insert.getBytes(StandardCharsets.UTF_8).length);
        assertEveryTurnRebuilds(conversation, bodies, turns);
      }
    }
  }

  @Test
  void shouldCostOnlyTheEditAndTheNewMessagesWhenTheSystemPromptTimeChangesEveryTurn() {
    // Given: tau-bench's system prompt carries "The current time is 2024-05-15 15:00:00 EST.";
    // a client that keeps it current changes it in every request
    JsonNode conversation = conversations("agentic/tau_bench_gpt4o_airline.jsonl", 1).get(0);
    String system = conversation.path("messages").get(0).path("content").asText();
    assertThat(system).contains("2024-05-15 15:00:00 EST");
    IntFunction<String> timed =
        turn ->
            system.replace(
                "2024-05-15 15:00:00 EST",
                String.format("2024-05-15 15:%02d:%02d EST", turn % 60, (turn * 37) % 60));
    List<byte[]> bodies = render(conversation, timed);

    // When
    List<EncodedTurn> turns = encodeSession(bodies);

    // Then: every later turn is a delta on the previous one that carries the new messages and a
    // few bytes around the changed time, not the history after it
    for (int k = 1; k < turns.size(); k++) {
      EncodedTurn turn = turns.get(k);
      String at = "turn " + turn.seq();
      assertThat(turn.isKeyframe()).as(at).isFalse();
      assertThat(turn.base().seq()).as(at).isEqualTo(turn.seq() - 1);
      long newMessageBytes = bodies.get(k).length - bodies.get(k - 1).length;
      assertThat(turn.delta().insertedBytes()).as(at).isLessThanOrEqualTo(newMessageBytes + 64);
    }
    assertEveryTurnRebuilds(conversation, bodies, turns);
  }

  // ---------------------------------------------------------------------------------------------

  /** Encodes one session's bodies in order, keeping and evicting bases as the stream app does. */
  private List<EncodedTurn> encodeSession(List<byte[]> bodies) {
    SessionState state = SessionState.newChain("0a1b2c3d");
    Map<Long, byte[]> stored = new HashMap<>();
    List<EncodedTurn> turns = new ArrayList<>();
    long now = 1_000;
    for (byte[] body : bodies) {
      EncodedTurn turn = encoder.encode(state, body, true, stored::get, now++);
      if (turn.storeBody()) {
        stored.put(turn.seq(), body);
      }
      turn.evictedSeqs().forEach(stored::remove);
      state = turn.newState();
      turns.add(turn);
    }
    return turns;
  }

  /**
   * Rebuilds every turn from its keyframe or from its rebuilt base, as a reader does.
   *
   * @return the number of turns rebuilt
   */
  private static int assertEveryTurnRebuilds(
      JsonNode conversation, List<byte[]> bodies, List<EncodedTurn> turns) {
    assertThat(turns).hasSameSizeAs(bodies);
    Map<Long, byte[]> rebuilt = new HashMap<>();
    for (int k = 0; k < turns.size(); k++) {
      EncodedTurn turn = turns.get(k);
      String at = conversation.path("id").asText() + " turn " + turn.seq();
      assertThat(turn.seq()).as(at).isEqualTo(k + 1);
      byte[] bytes;
      if (turn.isKeyframe()) {
        bytes = bodies.get(k);
      } else {
        byte[] base = rebuilt.get(turn.base().seq());
        assertThat(base).as(at + ": base rebuilt before").isNotNull();
        assertThat(Sha256.hex(base)).as(at).isEqualTo(turn.base().sha256());
        try {
          bytes = DeltaDecoder.apply(base, turn.delta().ops());
        } catch (DeltaException e) {
          throw new AssertionError(at + ": " + e.getMessage(), e);
        }
        assertThat(turn.delta().copiedBytes() + turn.delta().insertedBytes())
            .as(at)
            .isEqualTo(bodies.get(k).length);
      }
      assertThat(bytes).as(at).isEqualTo(bodies.get(k));
      rebuilt.put(turn.seq(), bytes);
    }
    return turns.size();
  }

  /**
   * One request body per assistant message: every message before it, after a system message (the
   * conversation's own, the fixed default when it has none, or {@code systemPrompt}'s for the turn
   * when that gives one).
   */
  private static List<byte[]> render(JsonNode conversation, IntFunction<String> systemPrompt) {
    List<byte[]> bodies = new ArrayList<>();
    JsonNode messages = conversation.path("messages");
    for (int i = 0; i < messages.size(); i++) {
      if ("assistant".equals(messages.get(i).path("role").asText())) {
        bodies.add(body(history(conversation, i, systemPrompt.apply(bodies.size() + 1))));
      }
    }
    return bodies;
  }

  private static List<JsonNode> historyBeforeLastAssistant(
      JsonNode conversation, String systemPrompt) {
    JsonNode messages = conversation.path("messages");
    int last = -1;
    for (int i = 0; i < messages.size(); i++) {
      if ("assistant".equals(messages.get(i).path("role").asText())) {
        last = i;
      }
    }
    return history(conversation, last, systemPrompt);
  }

  private static List<JsonNode> history(JsonNode conversation, int end, String systemPrompt) {
    JsonNode messages = conversation.path("messages");
    List<JsonNode> history = new ArrayList<>();
    boolean hasSystem = "system".equals(messages.path(0).path("role").asText());
    ObjectNode system = JsonNodeFactory.instance.objectNode();
    system.put("role", "system");
    if (systemPrompt != null) {
      system.put("content", systemPrompt);
      history.add(system);
    } else if (!hasSystem) {
      system.put("content", SYSTEM_PROMPT);
      history.add(system);
    }
    for (int j = systemPrompt != null && hasSystem ? 1 : 0; j < end; j++) {
      history.add(messages.get(j));
    }
    return history;
  }

  private static byte[] body(List<JsonNode> history) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("model", "prefixlog-test");
    ArrayNode messages = body.putArray("messages");
    history.forEach(messages::add);
    body.put("temperature", 0.7);
    body.put("max_tokens", 1024);
    return json(body).getBytes(StandardCharsets.UTF_8);
  }

  private static String json(JsonNode node) {
    try {
      return Json.mapper().writeValueAsString(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first {@code limit} conversations of a corpus file. */
  private static List<JsonNode> conversations(String file, int limit) {
    Path path = corpora().resolve(file);
    List<JsonNode> conversations = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      String line;
      while (conversations.size() < limit && (line = reader.readLine()) != null) {
        if (!line.isBlank()) {
          conversations.add(Json.mapper().readTree(line));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read corpus " + path, e);
    }
    assertThat(conversations).as(file).isNotEmpty();
    return conversations;
  }

  /** {@code corpora/} of the project: in the working directory (core/) or one of its parents. */
  private static Path corpora() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("corpora/SOURCES.md"))) {
        return dir.resolve("corpora");
      }
    }
    throw new AssertionError(
        "corpora/SOURCES.md not found in "
            + Path.of("").toAbsolutePath()
            + " or its parents: the corpus tests need the bundled corpora");
  }
}
