package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.chunk.ChunkHasher;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.schemas.json.Json;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one-pass curve against the naive simulator on traces made the way the stream app makes them:
 * real agent and chat sessions from the bundled corpora, each turn's chat request rendered and
 * hashed into prefix-chained 256-byte chunks.
 */
class CorpusTraceTest {
  @Test
  void shouldEqualTheNaiveSimulatorOnLookupTracesOfTheBundledCorpora() throws Exception {
    // Given
    List<LookupRequest> trace = new ArrayList<>();
    ChunkHasher hasher = new ChunkHasher(256);
    long[] ts = {1_700_000_000_000L};
    addTurns(trace, hasher, "agentic/tau_bench_gpt4o_airline.jsonl", 40, "model-a", ts);
    addTurns(trace, hasher, "agentic/swe_agent_trajectories.jsonl", 22, "model-b", ts);
    addTurns(trace, hasher, "chat/hh_rlhf_helpful_base_test.jsonl", 300, "model-a", ts);
    assertThat(trace).hasSizeGreaterThan(1000);

    // When
    MrcAnalyzer analyzer = MrcAnalyzer.builder().timelineCapacity(256).build();
    trace.forEach(analyzer::accept);
    Analysis analysis = analyzer.finish();

    // Then
    long[] capacities = Curve.logSpaced(24, analysis.overall().curve().workingSet() + 1);
    MrcAnalyzerTest.assertMatchesNaive(analysis, trace, capacities, "corpora");
    assertThat(analysis.overall().curve().hitRate(analysis.overall().curve().workingSet()))
        .isGreaterThan(0.5);
  }

  private static void addTurns(
      List<LookupRequest> trace,
      ChunkHasher hasher,
      String file,
      int conversations,
      String model,
      long[] ts)
      throws Exception {
    try (BufferedReader reader =
        Files.newBufferedReader(corpora().resolve(file), StandardCharsets.UTF_8)) {
      String line;
      int read = 0;
      while ((line = reader.readLine()) != null && read++ < conversations) {
        JsonNode conversation = Json.mapper().readTree(line);
        List<JsonNode> history = new ArrayList<>();
        for (JsonNode message : conversation.get("messages")) {
          if ("assistant".equals(message.path("role").asText())) {
            ObjectNode body = Json.mapper().createObjectNode();
            body.put("model", model);
            ArrayNode messages = body.putArray("messages");
            history.forEach(messages::add);
            byte[] prompt = PromptRenderer.render(Json.mapper().writeValueAsBytes(body)).bytes();
            long[] keys = hasher.hash(prompt);
            ts[0] += 250;
            trace.add(LookupRequest.of(ts[0], model, keys, 256, prompt.length));
          }
          history.add(message);
        }
      }
    }
  }

  private static Path corpora() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("corpora"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the project's corpora/ directory above the working directory").isNotNull();
    return dir.resolve("corpora");
  }
}
