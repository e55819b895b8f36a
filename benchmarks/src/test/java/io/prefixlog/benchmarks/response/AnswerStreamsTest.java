package io.prefixlog.benchmarks.response;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.benchmarks.harness.CorpusRequests;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.core.response.ChatStreamAssembly;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class AnswerStreamsTest {
  @Test
  void shouldStreamEveryCorpusAnswerSoThatItAssemblesBackToTheMessage() throws Exception {
    // Given: the benchmark's corpora
    Path corpora = ProjectHome.find().orElseThrow().resolve("corpora");
    int answers = 0;
    for (String file : CorpusRequests.MIXED) {
      for (Conversation conversation : CorpusFile.read(corpora.resolve(file))) {
        for (ObjectNode message : conversation.messages()) {
          if (!"assistant".equals(message.path("role").asText())) {
            continue;
          }
          // When
          byte[] stream = AnswerStreams.of(message, "chatcmpl-t", "m");
          ChatStreamAssembly assembly = new ChatStreamAssembly();
          assembly.accept(stream, 0, stream.length);
          ChatStreamAssembly.Assembled assembled = assembly.finish();

          // Then: the content and the tool calls as the corpus holds them, and a whole stream
          JsonNode got = Json.mapper().readTree(assembled.json()).path("choices").get(0);
          assertThat(got.path("message").path("content").asText(""))
              .isEqualTo(message.path("content").asText(""));
          assertThat(got.path("message").path("tool_calls").size())
              .isEqualTo(message.path("tool_calls").size());
          for (int i = 0; i < message.path("tool_calls").size(); i++) {
            JsonNode want = message.path("tool_calls").get(i);
            JsonNode call = got.path("message").path("tool_calls").get(i);
            assertThat(call.path("id")).isEqualTo(want.path("id"));
            assertThat(call.path("function")).isEqualTo(want.path("function"));
          }
          assertThat(assembled.complete()).isTrue();
          answers++;
        }
      }
    }
    assertThat(answers).isGreaterThan(900);
  }

  @Test
  void shouldCutTokensOfAtMostFourCharactersAndKeepEveryCharacter() {
    // Given
    String text = " Hello, wörld! 😀😀😀 pneumonoultramicroscopic\n\n  x";

    // When
    var tokens = AnswerStreams.tokens(text);

    // Then
    assertThat(String.join("", tokens)).isEqualTo(text);
    assertThat(tokens)
        .allSatisfy(t -> assertThat(t.codePointCount(0, t.length())).isLessThanOrEqualTo(4));
  }
}
