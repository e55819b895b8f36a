package io.prefixlog.tools.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class AgentSessionsTest {
  private static final AgentShape SHAPE = AgentShape.DEFAULT.withSize(4, 60);
  private static List<AgentSessions.AgentRequest> requests;

  @BeforeAll
  static void generate() {
    requests = sessions().requests();
  }

  private static AgentSessions sessions() {
    Path corpora =
        ProjectHome.findFrom(Path.of(""))
            .orElseThrow(() -> new IllegalStateException("run the tests inside the project"))
            .resolve("corpora");
    return AgentSessions.fromCorpora(corpora, SHAPE);
  }

  @Test
  void shouldGiveTheSameBytesForTheSameShapeAndSeed() {
    // When
    List<AgentSessions.AgentRequest> again = sessions().requests();

    // Then
    assertThat(again).hasSameSizeAs(requests);
    for (int i = 0; i < requests.size(); i++) {
      assertThat(again.get(i).conversationId()).isEqualTo(requests.get(i).conversationId());
      assertThat(again.get(i).body()).isEqualTo(requests.get(i).body());
    }
  }

  @Test
  void shouldInterleaveEverySessionsTurnsInOrder() {
    // When
    Map<String, List<Integer>> turns = new LinkedHashMap<>();
    for (AgentSessions.AgentRequest request : requests) {
      turns.computeIfAbsent(request.conversationId(), k -> new ArrayList<>()).add(request.turn());
    }

    // Then: 4 sessions of 60 turns each, numbered 1..60, and not one session after another
    assertThat(turns).hasSize(4);
    for (List<Integer> sequence : turns.values()) {
      assertThat(sequence).hasSize(60);
      for (int i = 0; i < sequence.size(); i++) {
        assertThat(sequence.get(i)).isEqualTo(i + 1);
      }
    }
    assertThat(requests.get(0).conversationId()).isNotEqualTo(requests.get(59).conversationId());
  }

  @Test
  void shouldSendAnAgentsRequestsWithToolsToolCallsAndGrowingHistory() throws IOException {
    // Given
    List<AgentSessions.AgentRequest> first = ofSession(requests.get(0).conversationId());

    // When
    JsonNode turn1 = Json.mapper().readTree(first.get(0).body());
    JsonNode turn10 = Json.mapper().readTree(first.get(9).body());

    // Then: system, task; then one assistant tool call and one tool result per turn
    assertThat(turn1.path("tools")).hasSize(6);
    assertThat(turn1.path("messages")).hasSize(2);
    assertThat(turn10.path("messages")).hasSize(2 + 2 * 9);
    JsonNode call = turn10.path("messages").get(2).path("tool_calls").get(0);
    assertThat(call.path("function").path("arguments").isTextual()).isTrue();
    assertThat(Json.mapper().readTree(call.path("function").path("arguments").asText()).isObject())
        .isTrue();
    JsonNode result = turn10.path("messages").get(3);
    assertThat(result.path("role").asText()).isEqualTo("tool");
    assertThat(result.path("tool_call_id").asText()).isEqualTo(call.path("id").asText());
  }

  @Test
  void shouldCompactTheOldestToolResultsEveryTwentyFiveTurns() throws IOException {
    // Given
    List<AgentSessions.AgentRequest> session = ofSession(requests.get(0).conversationId());

    // When: turn 25 is sent before the compaction, turn 26 after it
    List<String> before = toolContents(session.get(24).body());
    List<String> after = toolContents(session.get(25).body());

    // Then: all but the newest 8 results of turn 26 are stubs; turn 25 had none
    assertThat(before).doesNotContain(AgentSessions.CLEARED);
    assertThat(after).hasSize(25);
    assertThat(after.subList(0, 17)).containsOnly(AgentSessions.CLEARED);
    assertThat(after.subList(17, 25)).doesNotContain(AgentSessions.CLEARED);
  }

  @Test
  void shouldGrowBodiesToHundredsOfKilobytes() {
    // When
    int largest = requests.stream().mapToInt(r -> r.body().length).max().orElseThrow();

    // Then
    assertThat(largest).isBetween(250_000, 900_000);
  }

  @Test
  void shouldShowEarlierFilesAgainAndQuoteEarlierResults() throws IOException {
    // Given
    int reshown = 0;
    int quoting = 0;
    int edits = 0;
    for (String id : sessionIds()) {
      List<AgentSessions.AgentRequest> session = ofSession(id);
      JsonNode last = Json.mapper().readTree(session.get(session.size() - 1).body());
      List<String> paths = new ArrayList<>();
      for (JsonNode message : last.path("messages")) {
        JsonNode call = message.path("tool_calls").path(0).path("function");
        if (call.isMissingNode()) {
          continue;
        }
        JsonNode arguments = Json.mapper().readTree(call.path("arguments").asText());
        String path = arguments.path("path").asText();
        // When
        if (call.path("name").asText().equals("read_file")) {
          reshown += paths.contains(path) ? 1 : 0;
          paths.add(path);
        } else if (call.path("name").asText().equals("edit_file")) {
          edits++;
          quoting += arguments.path("old_string").asText().length() >= 500 ? 1 : 0;
        }
      }
    }

    // Then: both happen, about as often as the shape says
    assertThat(reshown).isPositive();
    assertThat(edits).isPositive();
    assertThat((double) quoting / edits).isBetween(0.15, 0.45);
  }

  private static List<String> sessionIds() {
    return requests.stream().map(AgentSessions.AgentRequest::conversationId).distinct().toList();
  }

  private static List<AgentSessions.AgentRequest> ofSession(String id) {
    return requests.stream().filter(r -> r.conversationId().equals(id)).toList();
  }

  private static List<String> toolContents(byte[] body) throws IOException {
    List<String> contents = new ArrayList<>();
    for (JsonNode message : Json.mapper().readTree(body).path("messages")) {
      if (message.path("role").asText().equals("tool")) {
        contents.add(message.path("content").asText());
      }
    }
    return contents;
  }
}
