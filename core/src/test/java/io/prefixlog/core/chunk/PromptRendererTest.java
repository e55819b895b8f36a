package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.chunk.RenderedPrompt.Kind;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PromptRendererTest {
  private static final String TAU = "agentic/tau_bench_gpt4o_airline.jsonl";

  /** A small chat request touching every rendering rule; {@code tools} after the messages. */
  private static final String CHAT =
      "{\"model\":\"m\",\"messages\":["
          + "{\"role\":\"system\",\"content\":\"Be brief.\"},"
          + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is in\"},"
          + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}},"
          + "{\"type\":\"text\",\"text\":\"this picture?\"}]},"
          + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\","
          + "\"type\":\"function\",\"function\":{\"name\":\"lookup\","
          + "\"arguments\":\"{\\\"q\\\":\\\"é\\\"}\"}}]},"
          + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"name\":\"lookup\","
          + "\"content\":\"a cat\"}],"
          + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"lookup\","
          + "\"parameters\":{\"type\":\"object\"}}}],\"temperature\":0.2}";

  private static final String CHAT_RENDERED =
      "<|tools|>\n"
          + "{\"type\":\"function\",\"function\":{\"name\":\"lookup\","
          + "\"parameters\":{\"type\":\"object\"}}}\n"
          + "<|end|>\n"
          + "<|system|>\nBe brief.<|end|>\n"
          + "<|user|>\nWhat is in\n<|part:image_url:79d9b495163afa34|>\nthis picture?<|end|>\n"
          + "<|assistant|>\n<|tool_call|>{\"id\":\"call_1\",\"type\":\"function\","
          + "\"function\":{\"name\":\"lookup\",\"arguments\":\"{\\\"q\\\":\\\"é\\\"}\"}}\n<|end|>\n"
          + "<|tool|> name=lookup tool_call_id=call_1\na cat<|end|>\n";

  @Test
  void shouldRenderAChatRequestAsItsToolsThenItsMessages() {
    // Given
    byte[] body = utf8(CHAT);

    // When
    RenderedPrompt rendered = PromptRenderer.render(body);

    // Then
    assertThat(rendered.kind()).isEqualTo(Kind.CHAT_MESSAGES);
    assertThat(text(rendered)).isEqualTo(CHAT_RENDERED);
    assertThat(rendered.length()).isEqualTo(utf8(CHAT_RENDERED).length);
  }

  @Test
  void shouldRenderTheSameWhateverTheWhitespaceAndEscapingOfTheBody() {
    // Given: the same request, pretty-printed and with é and the quotes escaped differently
    String spaced =
        CHAT.replace(",\"", ",\n  \"")
            .replaceAll("(?<!\\\\)\":", "\" : ")
            .replace("é", "\\u00e9")
            .replace("Be brief.", "Be\\u0020brief\\u002e");

    // When
    RenderedPrompt rendered = PromptRenderer.render(utf8(spaced));

    // Then
    assertThat(spaced).isNotEqualTo(CHAT);
    assertThat(text(rendered)).isEqualTo(CHAT_RENDERED);
  }

  @Test
  void shouldRenderEveryCorpusTurnAsAStrictExtensionOfThePreviousTurn() {
    // Given: every conversation of every corpus file; the airline runs with tool definitions
    String[][] files = {
      {"chat/hh_rlhf_helpful_base_test.jsonl", null},
      {"chat/hh_rlhf_harmless_base_test.jsonl", null},
      {"chat/oasst_en100_threads.jsonl", null},
      {TAU, CorpusBodies.AIRLINE_TOOLS},
      {"agentic/swe_agent_trajectories.jsonl", null},
    };
    int pairs = 0;
    int withToolResults = 0;
    for (String[] file : files) {
      for (CorpusBodies.Conversation conversation :
          CorpusBodies.conversations(file[0], Integer.MAX_VALUE, file[1])) {
        byte[] previous = null;
        for (byte[] body : conversation.bodies()) {
          // When
          RenderedPrompt rendered = PromptRenderer.render(body);

          // Then
          assertThat(rendered.kind()).as(conversation.id()).isEqualTo(Kind.CHAT_MESSAGES);
          if (previous != null) {
            assertThat(rendered.length()).as(conversation.id()).isGreaterThan(previous.length);
            assertThat(
                    Arrays.equals(
                        previous, 0, previous.length, rendered.bytes(), 0, previous.length))
                .as("%s: a turn's rendering starts with the previous turn's", conversation.id())
                .isTrue();
            pairs++;
          }
          if (text(rendered).contains(" tool_call_id=")) {
            withToolResults++;
          }
          previous = rendered.bytes();
        }
      }
    }
    assertThat(pairs).isGreaterThan(5_000);
    assertThat(withToolResults).isGreaterThan(1_000);
  }

  @Test
  void shouldChangeTheRenderingFromAnEditedTimestampOn() {
    // Given: turns 1 and 2 of an airline run whose system prompt carries the current time
    String id = "tau-airline-gpt4o-task0-trial0";
    String system = CorpusBodies.systemMessage(TAU, id);
    assertThat(system).contains("2024-05-15 15:00:00 EST");
    List<byte[]> bodies =
        CorpusBodies.bodies(
            TAU, id, turn -> system.replace("15:00:00 EST", "15:00:0" + (turn * 7 % 10) + " EST"));

    // When
    byte[] first = PromptRenderer.render(bodies.get(0)).bytes();
    byte[] second = PromptRenderer.render(bodies.get(1)).bytes();

    // Then: equal up to the edited digit, and the whole rest of turn 1 follows it unchanged
    int edit =
        utf8("<|system|>\n").length
            + utf8(system.substring(0, system.indexOf("00 EST") + 1)).length;
    assertThat(Arrays.mismatch(first, second)).isEqualTo(edit);
    assertThat((char) first[edit]).isEqualTo('7');
    assertThat((char) second[edit]).isEqualTo('4');
    assertThat(Arrays.equals(first, edit + 1, first.length, second, edit + 1, first.length))
        .isTrue();
  }

  @Test
  void shouldRenderEqualMediaPartsEqualAndDifferentOnesDifferent() {
    // Given
    String other = CHAT.replace("base64,AAAA", "base64,AAAB");

    // When
    String rendered = text(PromptRenderer.render(utf8(other)));

    // Then
    assertThat(rendered)
        .isEqualTo(
            CHAT_RENDERED.replace(
                "<|part:image_url:79d9b495163afa34|>", "<|part:image_url:bfb12e8427db2076|>"));
  }

  @Test
  void shouldRenderACompletionPrompt() {
    assertThat(render("{\"model\":\"m\",\"prompt\":\"Once upon a time\"}"))
        .isEqualTo("completion_prompt:Once upon a time");
    assertThat(render("{\"prompt\":[\"Once \",\"upon\"]}"))
        .isEqualTo("completion_prompt:Once upon");
    assertThat(render("{\"prompt\":[101, 7592, 102]}"))
        .isEqualTo("completion_prompt:101 7592 102 ");
    assertThat(render("{\"prompt\":[[101, 7592], [102]]}"))
        .isEqualTo("completion_prompt:101 7592 102 ");
    assertThat(render("{\"prompt\":\"\"}")).isEqualTo("completion_prompt:");
  }

  @Test
  void shouldRenderAnEmptyConversationAsNothing() {
    assertThat(render("{\"messages\":[],\"tools\":[]}")).isEqualTo("chat_messages:");
  }

  @Test
  void shouldPreferTheMessagesWhenABodyHasBothMessagesAndPrompt() {
    assertThat(render("{\"prompt\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"m\"}]}"))
        .isEqualTo("chat_messages:<|user|>\nm<|end|>\n");
  }

  @Test
  void shouldRenderUnusualContentAsCompactJson() {
    assertThat(
            render(
                "{\"messages\":[{\"role\":\"user\",\"content\":{\"b\": 1, \"a\": [true]}},"
                    + "{\"role\":\"user\",\"content\":[\"plain\", {\"type\":\"text\"}]}]}"))
        .isEqualTo(
            "chat_messages:<|user|>\n{\"b\":1,\"a\":[true]}<|end|>\n"
                + "<|user|>\nplain\n<|part:text:89e245f192917638|><|end|>\n");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "not json at all",
        "",
        "[1,2,3]",
        "\"a string\"",
        "{\"input\":\"an embeddings request\"}",
        "{\"messages\":\"hello\"}",
        "{\"messages\":[\"hello\"]}",
        "{\"messages\":[{\"content\":\"no role\"}]}",
        "{\"messages\":[{\"role\":7,\"content\":\"role not a string\"}]}",
        "{\"messages\":[],\"tools\":{\"name\":\"not a list\"}}",
        "{\"messages\":[]} trailing",
        "{\"prompt\":[{\"not\":\"a prompt\"}]}",
        "{\"prompt\":[[1,\"x\"]]}",
        "{\"prompt\":7}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"cut off"
      })
  void shouldChunkTheBodyAsItIsWhenItIsNotAChatOrCompletionRequest(String body) {
    // Given
    byte[] bytes = utf8(body);

    // When
    RenderedPrompt rendered = PromptRenderer.render(bytes);

    // Then
    assertThat(rendered.kind()).isEqualTo(Kind.RAW_BODY);
    assertThat(rendered.bytes()).isSameAs(bytes);
  }

  @Test
  void shouldChunkABodyThatIsNotUtf8AsItIs() {
    // Given
    byte[] body = {'{', '"', 'p', 'r', 'o', 'm', 'p', 't', '"', ':', '"', (byte) 0xFF, '"', '}'};

    // When
    RenderedPrompt rendered = PromptRenderer.render(body);

    // Then
    assertThat(rendered.kind()).isEqualTo(Kind.RAW_BODY);
    assertThat(rendered.bytes()).isSameAs(body);
  }

  @Test
  void shouldNotFailOnUnpairedSurrogates() {
    // Given: JSON can carry a lone surrogate, which has no UTF-8 form
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"a\\ud800b\"}],"
            + "\"tools\":[{\"description\":\"c\\udc00d\"}]}";

    // When
    RenderedPrompt rendered = PromptRenderer.render(utf8(body));

    // Then: both become '?', as String.getBytes writes them
    assertThat(rendered.kind()).isEqualTo(Kind.CHAT_MESSAGES);
    assertThat(text(rendered))
        .isEqualTo("<|tools|>\n{\"description\":\"c?d\"}\n<|end|>\n<|user|>\na?b<|end|>\n");
  }

  @Test
  void shouldNeverShowThePromptInToString() {
    assertThat(PromptRenderer.render(utf8(CHAT)).toString())
        .isEqualTo(
            "RenderedPrompt[kind=chat_messages, length="
                + utf8(CHAT_RENDERED).length
                + ", <redacted>]")
        .doesNotContain("brief");
  }

  private static String render(String body) {
    RenderedPrompt rendered = PromptRenderer.render(utf8(body));
    return rendered.kind().wireName() + ":" + text(rendered);
  }

  private static String text(RenderedPrompt rendered) {
    return new String(rendered.bytes(), StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
