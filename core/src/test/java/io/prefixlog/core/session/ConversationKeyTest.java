package io.prefixlog.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Requests without a session header, {@code session_id} or {@code user}, as most SDK clients send
 * them, all through one gateway (one address, model and user agent): each conversation gets a key
 * of its own, the same on every turn.
 */
class ConversationKeyTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String GATEWAY = "10.0.0.1";
  private static final String AGENT = "OpenAI/Python 1.82.0";
  private static final String SYSTEM = "You are a coding agent. Use the tools to inspect the repo.";

  private final SessionKeyDeriver deriver =
      new SessionKeyDeriver(
          "a-deployment-secret-0123456789".getBytes(StandardCharsets.UTF_8),
          SessionKeyDeriver.DEFAULT_HEADERS);

  @Test
  void shouldGiveTwoConversationsThroughOneGatewayTwoKeys() {
    // Given
    byte[] first = chat(system(SYSTEM), user("Fix the failing test in parser.py"));
    byte[] second = chat(system(SYSTEM), user("Add a --verbose flag to the CLI"));

    // When
    SessionKey a = derive(first);
    SessionKey b = derive(second);

    // Then
    assertThat(a.source()).isEqualTo("conversation");
    assertThat(b.source()).isEqualTo("conversation");
    assertThat(a.key()).hasSize(SessionKeyDeriver.KEY_HEX_CHARS).isNotEqualTo(b.key());
  }

  @Test
  void shouldGiveEveryTurnOfAConversationTheKeyOfItsFirstTurn() {
    // Given: turn 1, and turn 5 after tool calls, their results and a second user message
    byte[] turn1 = chat(system(SYSTEM), user("Fix the failing test in parser.py"));
    byte[] turn5 = chat(turn5Messages().toArray(JsonNode[]::new));

    // When
    SessionKey first = derive(turn1);
    SessionKey fifth = derive(turn5);

    // Then: the key is pinned, for it is what every stored conversation is filed under
    assertThat(first).isEqualTo(new SessionKey("a1d93a6be918a96cb2dc13987a437df1", "conversation"));
    assertThat(fifth).isEqualTo(first);
  }

  @Test
  void shouldGiveARegenerationAndABranchTheKeyOfTheirConversation() {
    // Given: turn 5 sent again, and turn 5 with its last user message edited
    List<JsonNode> branched = turn5Messages();
    branched.set(branched.size() - 1, user("No, only rename the function"));

    // When
    SessionKey original = derive(chat(turn5Messages().toArray(JsonNode[]::new)));
    SessionKey regenerated = derive(chat(turn5Messages().toArray(JsonNode[]::new)));
    SessionKey branch = derive(chat(branched.toArray(JsonNode[]::new)));

    // Then
    assertThat(regenerated).isEqualTo(original);
    assertThat(branch).isEqualTo(original);
  }

  @Test
  void shouldKeepTheKeyWhenACompactionStubsOldToolResults() {
    // Given: the tool result of turn 5 replaced by a stub, system prompt and first user message
    // kept
    List<JsonNode> compacted = turn5Messages();
    compacted.set(3, tool("call_1", "[tool result cleared to save context]"));

    // When
    SessionKey before = derive(chat(turn5Messages().toArray(JsonNode[]::new)));
    SessionKey after = derive(chat(compacted.toArray(JsonNode[]::new)));

    // Then
    assertThat(compacted.get(3)).isNotEqualTo(turn5Messages().get(3));
    assertThat(after).isEqualTo(before);
  }

  @Test
  void shouldStartANewKeyWhenACompactionRewritesTheFirstUserMessage() {
    // Given: the history folded into a summary that replaces the first user message
    byte[] summarised =
        chat(
            system(SYSTEM),
            user("Summary so far: the parser test fails on empty input; parser.py was read."),
            user("Go on"));

    // When
    SessionKey before = derive(chat(turn5Messages().toArray(JsonNode[]::new)));
    SessionKey after = derive(summarised);

    // Then: the conversation goes on under another key (a new chain, starting with a keyframe)
    assertThat(after.source()).isEqualTo("conversation");
    assertThat(after.key()).isNotEqualTo(before.key());
  }

  @Test
  void shouldKeepTheKeyWhenTheSystemPromptChangesBetweenTurns() {
    // Given: a client that writes the time into its system prompt on every turn
    byte[] turn1 =
        chat(system(SYSTEM + " It is 15:00."), user("Fix the failing test in parser.py"));
    byte[] turn2 =
        chat(
            system(SYSTEM + " It is 15:01."),
            user("Fix the failing test in parser.py"),
            assistant("Reading parser.py first."),
            user("Go on"));

    // When / Then: one conversation, one key (each turn is a delta, the edit a few bytes)
    assertThat(derive(turn2)).isEqualTo(derive(turn1));
  }

  @Test
  void shouldGiveASubAgentWithTheSameSystemPromptItsOwnKey() {
    // Given: a sub-agent started with the parent's system prompt and its own task
    byte[] parent = chat(system(SYSTEM), user("Fix the failing test in parser.py"));
    byte[] subAgent = chat(system(SYSTEM), user("Find every caller of parse() and list them"));

    // When / Then
    assertThat(derive(subAgent).key()).isNotEqualTo(derive(parent).key());
  }

  @Test
  void shouldKeepTheKeyWhenCacheControlMovesOffTheFirstUserMessage() {
    // Given: turn 1 marks its user message for caching (as a text part); turn 2 has the marker on
    // its latest message and the first one back as a plain string
    ObjectNode marked = NODES.objectNode().put("role", "user");
    marked
        .putArray("content")
        .addObject()
        .put("type", "text")
        .put("text", "Fix the failing test in parser.py")
        .putObject("cache_control")
        .put("type", "ephemeral");
    byte[] turn1 = chat(system(SYSTEM), marked);
    ObjectNode latest = NODES.objectNode().put("role", "user");
    latest
        .putArray("content")
        .addObject()
        .put("type", "text")
        .put("text", "Go on")
        .putObject("cache_control")
        .put("type", "ephemeral");
    byte[] turn2 =
        chat(
            system(SYSTEM),
            user("Fix the failing test in parser.py"),
            assistant("Reading parser.py first."),
            latest);

    // When / Then
    assertThat(derive(turn2)).isEqualTo(derive(turn1));
  }

  @Test
  void shouldKeepTheFallbackKeyForABodyWithoutAUserMessage() {
    // Given: a completion prompt, a system-only chat, and the key of (address, model, agent) as
    // derived before conversations were told apart
    byte[] completion = utf8("{\"model\":\"m\",\"prompt\":\"Once upon a time\"}");
    byte[] systemOnly = chat(system(SYSTEM));
    SessionKey pinned = new SessionKey("90039f9eeaeda28f222137cce28e5099", "fallback");

    // When / Then
    assertThat(derive(completion)).isEqualTo(pinned);
    assertThat(derive(systemOnly)).isEqualTo(pinned);
  }

  @Test
  void shouldSpreadConversationsOfOneGatewayOverThePartitions() {
    // Given: 64 conversations through one gateway, and the same requests before conversations
    // were told apart (every one of them under the gateway's fallback key)
    Set<Integer> conversationPartitions = new HashSet<>();
    Set<Integer> fallbackPartitions = new HashSet<>();

    // When: partitioned as Kafka's default partitioner places a keyed record on 16 partitions
    for (int i = 0; i < 64; i++) {
      byte[] body = chat(system(SYSTEM), user("Task " + i + ": fix the failing test " + i));
      SessionKey key = derive(body);
      assertThat(key.source()).isEqualTo("conversation");
      conversationPartitions.add(partition(key.key(), 16));
      fallbackPartitions.add(
          partition(
              deriver
                  .derive(Map.of(), BodyFields.read(utf8("{\"model\":\"m\"}")), GATEWAY, AGENT)
                  .key(),
              16));
    }

    // Then
    assertThat(fallbackPartitions).hasSize(1);
    assertThat(conversationPartitions.size()).isGreaterThanOrEqualTo(12);
  }

  private static int partition(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(utf8(key))) % partitions;
  }

  /** Turn 5 of an agent's conversation: two tool calls with their results, then a user message. */
  private static List<JsonNode> turn5Messages() {
    List<JsonNode> messages = new ArrayList<>();
    messages.add(system(SYSTEM));
    messages.add(user("Fix the failing test in parser.py"));
    messages.add(toolCall("call_1", "read_file", "{\"path\":\"parser.py\"}"));
    messages.add(tool("call_1", "def parse(text):\n    return text.split(',')\n"));
    messages.add(toolCall("call_2", "run_tests", "{}"));
    messages.add(tool("call_2", "FAILED test_parse_empty: [''] != []"));
    messages.add(assistant("parse('') returns [''] where the test wants []."));
    messages.add(user("Make it return an empty list then"));
    return messages;
  }

  private SessionKey derive(byte[] body) {
    return deriver.derive(Map.of(), BodyFields.read(body), GATEWAY, AGENT);
  }

  private static byte[] chat(JsonNode... messages) {
    ObjectNode body = NODES.objectNode().put("model", "m");
    ArrayNode array = body.putArray("messages");
    for (JsonNode message : messages) {
      array.add(message);
    }
    body.put("temperature", 0.2);
    try {
      return Json.mapper().writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode system(String text) {
    return NODES.objectNode().put("role", "system").put("content", text);
  }

  private static ObjectNode user(String text) {
    return NODES.objectNode().put("role", "user").put("content", text);
  }

  private static ObjectNode assistant(String text) {
    return NODES.objectNode().put("role", "assistant").put("content", text);
  }

  private static ObjectNode toolCall(String id, String name, String arguments) {
    ObjectNode message = NODES.objectNode().put("role", "assistant").putNull("content");
    message
        .putArray("tool_calls")
        .addObject()
        .put("id", id)
        .put("type", "function")
        .putObject("function")
        .put("name", name)
        .put("arguments", arguments);
    return message;
  }

  private static ObjectNode tool(String id, String text) {
    return NODES.objectNode().put("role", "tool").put("tool_call_id", id).put("content", text);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
