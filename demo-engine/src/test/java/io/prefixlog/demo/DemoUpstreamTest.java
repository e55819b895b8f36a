package io.prefixlog.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DemoUpstreamTest {
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<Served> served = new CopyOnWriteArrayList<>();
  private DemoUpstream upstream;

  @BeforeEach
  void start() throws Exception {
    upstream = DemoUpstream.start(DemoUpstream.Options.defaults(), served::add);
  }

  @AfterEach
  void stop() {
    upstream.close();
  }

  @Test
  void shouldReportTheSharedPrefixOfAFollowUpTurnAsCached() throws Exception {
    // Given
    String system = "x".repeat(3000);
    String first = chat(system, "[{\"role\":\"user\",\"content\":\"hello\"}]", false);
    String second =
        chat(
            system,
            "[{\"role\":\"user\",\"content\":\"hello\"},{\"role\":\"assistant\",\"content\":\"hi\"},"
                + "{\"role\":\"user\",\"content\":\"more\"}]",
            false);

    // When
    JsonNode one = Json.mapper().readTree(post("/v1/chat/completions", first, "req-1").body());
    JsonNode two = Json.mapper().readTree(post("/v1/chat/completions", second, "req-2").body());

    // Then: the first is all new; the second finds the first's full chunks (11 of 256 bytes)
    assertThat(one.path("id").asText()).isEqualTo("chatcmpl-req-1");
    assertThat(one.at("/usage/prompt_tokens_details/cached_tokens").asLong()).isZero();
    assertThat(one.at("/usage/prompt_tokens").asLong()).isGreaterThan(750);
    assertThat(two.path("id").asText()).isEqualTo("chatcmpl-req-2");
    assertThat(two.at("/usage/prompt_tokens_details/cached_tokens").asLong())
        .isEqualTo(11 * DemoUpstream.CHUNK_BYTES / 4);
    assertThat(two.at("/choices/0/message/content").asText()).hasSize(512);
    assertThat(served)
        .extracting(Served::requestId, Served::cachedTokens)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("req-1", 0L),
            org.assertj.core.groups.Tuple.tuple("req-2", 704L));
  }

  @Test
  void shouldStreamChunksThenUsageThenDoneWhenUsageIsRequested() throws Exception {
    // Given
    String body = chat("sys", "[{\"role\":\"user\",\"content\":\"hello\"}]", true);

    // When
    HttpResponse<String> response = post("/v1/chat/completions", body, "s-1");

    // Then
    assertThat(response.headers().firstValue("content-type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    List<String> events = new ArrayList<>(Arrays.asList(response.body().split("\n\n")));
    assertThat(events.get(events.size() - 1)).isEqualTo("data: [DONE]");
    JsonNode usage = Json.mapper().readTree(events.get(events.size() - 2).substring(6));
    assertThat(usage.path("choices")).isEmpty();
    assertThat(usage.at("/usage/prompt_tokens").asLong()).isEqualTo(served.get(0).promptTokens());
    assertThat(usage.path("id").asText()).isEqualTo("chatcmpl-s-1");
    StringBuilder text = new StringBuilder();
    for (String event : events.subList(0, events.size() - 2)) {
      text.append(
          Json.mapper().readTree(event.substring(6)).at("/choices/0/delta/content").asText());
    }
    assertThat(text).hasSize(512);
  }

  @Test
  void shouldStreamCompletionsWithoutUsageUnlessAsked() throws Exception {
    // When
    HttpResponse<String> response =
        post("/v1/completions", "{\"model\":\"m\",\"prompt\":\"hi\",\"stream\":true}", null);

    // Then
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).doesNotContain("\"usage\"").endsWith("data: [DONE]\n\n");
    assertThat(response.body())
        .contains("\"id\":\"cmpl-")
        .contains("\"object\":\"text_completion\"");
    assertThat(served).singleElement().satisfies(s -> assertThat(s.usageSent()).isFalse());
  }

  @Test
  void shouldRejectWhatIsNotACompletionRequest() throws Exception {
    // When
    int notJson = post("/v1/chat/completions", "{nope", null).statusCode();
    int noMessages = post("/v1/chat/completions", "{\"model\":\"m\"}", null).statusCode();
    int unknown = post("/v1/nothing", "{}", null).statusCode();

    // Then
    assertThat(List.of(notJson, noMessages, unknown)).containsExactly(400, 400, 404);
    assertThat(upstream.rejected()).isEqualTo(3);
    assertThat(served).isEmpty();
  }

  @Test
  void shouldListTheModelAndAnswerHealth() throws Exception {
    // When
    HttpResponse<String> models =
        client.send(
            HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/models")).build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> health =
        client.send(
            HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/health")).build(),
            HttpResponse.BodyHandlers.ofString());

    // Then
    assertThat(Json.mapper().readTree(models.body()).at("/data/0/id").asText())
        .isEqualTo("prefixlog-demo");
    assertThat(health.statusCode()).isEqualTo(200);
  }

  private static String chat(String system, String messagesTail, boolean stream) {
    String messages =
        "[{\"role\":\"system\",\"content\":\"" + system + "\"}," + messagesTail.substring(1);
    return "{\"model\":\"m\",\"messages\":"
        + messages
        + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
        + "}";
  }

  private HttpResponse<String> post(String path, String body, String requestId) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(upstream.baseUrl() + path))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    if (requestId != null) {
      request.header("X-Request-Id", requestId);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
