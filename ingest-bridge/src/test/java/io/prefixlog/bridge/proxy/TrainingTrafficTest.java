package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The AOT cache's training traffic is shaped as production chat traffic, and is valid JSON. */
class TrainingTrafficTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CLIENTS = 8;

  @Test
  void shouldGrowOneSessionsBodyTurnByTurnFromAboutTwoToOverTwentyKilobytes() throws Exception {
    // Given: client 3's first conversation, its requests n = 3, 11, 19, ...
    List<TrainingTraffic.Request> turns = new ArrayList<>();
    for (int turn = 0; turn < TrainingTraffic.TURNS; turn++) {
      turns.add(TrainingTraffic.request(3 + turn * CLIENTS, CLIENTS));
    }

    // When
    List<Integer> sizes = turns.stream().map(r -> r.body().length()).toList();

    // Then: one session id; the history resent (system, then user and assistant per earlier turn,
    // then the new user message); sizes of a chat client's
    assertThat(turns.stream().map(TrainingTraffic.Request::session).distinct())
        .containsExactly("training-3-0");
    for (int turn = 0; turn < turns.size(); turn++) {
      JsonNode body = JSON.readTree(turns.get(turn).body().getBytes());
      assertThat(body.get("messages").size()).isEqualTo(2 * turn + 2);
      assertThat(body.get("messages").get(0).get("role").asText()).isEqualTo("system");
      assertThat(body.get("messages").get(2 * turn + 1).get("role").asText()).isEqualTo("user");
      if (turn > 0) {
        assertThat(sizes.get(turn)).isGreaterThan(sizes.get(turn - 1));
      }
    }
    assertThat(sizes.get(0)).isBetween(1_500, 3_500);
    assertThat(sizes.get(TrainingTraffic.TURNS - 1)).isGreaterThan(20_000);
  }

  @Test
  void shouldStreamHalfTheConversationsAndStartANewSessionAfterTheLastTurn() throws Exception {
    // Given: the first two conversations of every client
    Set<String> sessions = new HashSet<>();
    int streamed = 0;
    int requests = 2 * TrainingTraffic.TURNS * CLIENTS;

    // When
    for (int n = 0; n < requests; n++) {
      TrainingTraffic.Request request = TrainingTraffic.request(n, CLIENTS);
      JsonNode body = JSON.readTree(request.body().getBytes());
      assertThat(body.path("stream").asBoolean(false)).isEqualTo(request.stream());
      sessions.add(request.session());
      streamed += request.stream() ? 1 : 0;
    }

    // Then
    assertThat(sessions).hasSize(2 * CLIENTS);
    assertThat(streamed).isEqualTo(requests / 2);
  }

  @Test
  void shouldCarryJsonEscapesAndMultiByteUtf8AsRealTextDoes() throws Exception {
    // Given
    TrainingTraffic.Request request = TrainingTraffic.request(5 * CLIENTS, CLIENTS);

    // When
    String raw = request.body().toString(StandardCharsets.UTF_8);
    String text = JSON.readTree(request.body().getBytes()).toString();

    // Then: escapes in the bytes on the wire, and the characters they stand for once parsed
    assertThat(raw).contains("\\n", "\\\"", "\\\\", "\\t");
    assertThat(request.body().length()).isGreaterThan(raw.length());
    assertThat(text).contains("日本語", "résumé", "🙂");
  }
}
