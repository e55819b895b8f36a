package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.chunk.RenderedPrompt.Kind;
import io.prefixlog.schemas.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The streaming {@link PromptRenderer} against {@link TreeRenderer}, the same specification written
 * over Jackson's tree, byte for byte.
 */
class RenderingEquivalenceTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String[] PIECES = {
    "plain ascii text ",
    "\"quoted\"",
    "back\\slash",
    "line\nbreak\ttab\r",
    "\u0001\u001f control",
    "ünïcödé",
    "中文字符",
    "😀🍞",
    "\ud800 lone high",
    "lone low \udc00",
    "</script>/slash",
    "<|end|>",
    ""
  };

  @Test
  void shouldRenderEveryCorpusBodyAsTheTreeRenderingDoes() {
    // Given
    String[][] files = {
      {"chat/hh_rlhf_helpful_base_test.jsonl", null},
      {"chat/oasst_en100_threads.jsonl", null},
      {"agentic/tau_bench_gpt4o_airline.jsonl", CorpusBodies.AIRLINE_TOOLS},
      {"agentic/swe_agent_trajectories.jsonl", null},
    };
    int bodies = 0;
    for (String[] file : files) {
      for (CorpusBodies.Conversation conversation :
          CorpusBodies.conversations(file[0], 400, file[1])) {
        for (byte[] body : conversation.bodies()) {
          // When / Then
          assertSameRendering(body, conversation.id());
          bodies++;
        }
      }
    }
    assertThat(bodies).isGreaterThan(3_000);
  }

  @Test
  void shouldRenderRandomChatRequestsAsTheTreeRenderingDoes() throws Exception {
    // Given: random chat requests with every kind of escape, any key order, duplicate keys and
    // odd shapes, serialised plainly and with every non-ASCII character escaped
    Random random = new Random(20261121L);
    int chat = 0;
    int raw = 0;
    for (int i = 0; i < 3_000; i++) {
      ObjectNode request = randomRequest(random);
      List<byte[]> forms = new ArrayList<>();
      forms.add(Json.mapper().writeValueAsBytes(request));
      forms.add(
          Json.mapper()
              .writer()
              .with(JsonWriteFeature.ESCAPE_NON_ASCII)
              .writeValueAsBytes(request));
      String duplicated = new String(forms.get(0), StandardCharsets.UTF_8);
      forms.add(
          ("{\"messages\":\"overridden\"," + duplicated.substring(1))
              .getBytes(StandardCharsets.UTF_8));
      for (byte[] body : forms) {
        // When / Then
        Kind kind = assertSameRendering(body, "request " + i);
        if (kind == Kind.CHAT_MESSAGES) {
          chat++;
        } else {
          raw++;
        }
      }
    }
    assertThat(chat).isGreaterThan(5_000);
    assertThat(raw).isGreaterThan(500);
  }

  @Test
  void shouldRejectExactlyTheMutatedBodiesThatJacksonRejects() throws Exception {
    // Given: small chat and completion requests, damaged by one edit each
    Random random = new Random(99);
    byte[] alphabet =
        "{}[]\",:\\/ \n\t0123456789.-+eEtrufalsn\u0001xu".getBytes(StandardCharsets.UTF_8);
    List<byte[]> seeds = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      seeds.add(Json.mapper().writeValueAsBytes(randomRequest(random)));
    }
    seeds.add("{\"prompt\":[[1,2],[3,-4]],\"n\":1.5e-3}".getBytes(StandardCharsets.UTF_8));
    seeds.add(
        "{\"prompt\":\"caf\\u00e9 \\ud83d\\ude00\",\"x\":[true,false,null]}"
            .getBytes(StandardCharsets.UTF_8));
    int rejected = 0;
    int accepted = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] seed = seeds.get(random.nextInt(seeds.size()));
      byte[] body = mutate(seed, random, alphabet);

      // When / Then: the same outcome (a mutated number such as 1.50 is written as it is, where
      // the tree would write 1.5, so only the kinds are compared here)
      Kind kind = PromptRenderer.render(body).kind();
      String tree = TreeRenderer.render(body);
      assertThat(kind.wireName() + ":")
          .as("mutation %d", i)
          .isEqualTo(tree.substring(0, tree.indexOf(':') + 1));
      if (kind == Kind.RAW_BODY) {
        rejected++;
      } else {
        accepted++;
      }
    }
    assertThat(rejected).isGreaterThan(5_000);
    assertThat(accepted).isGreaterThan(500);
  }

  @Test
  void shouldAgreeWithJacksonOnNestingDepthAndTheByteOrderMark() {
    for (int depth : new int[] {998, 999, 1000, 1001}) {
      // Given: a tool definition nested so that the body is depth levels deep
      String body =
          "{\"messages\":[],\"tools\":[" + "[".repeat(depth - 2) + "]".repeat(depth - 2) + "]}";

      // When
      Kind kind = assertSameRendering(body.getBytes(StandardCharsets.UTF_8), "depth " + depth);

      // Then: Jackson's limit, 1000 levels
      assertThat(kind).isEqualTo(depth <= 1000 ? Kind.CHAT_MESSAGES : Kind.RAW_BODY);
    }
    assertThat(
            assertSameRendering(
                ("\uFEFF{\"prompt\":\"p\"}").getBytes(StandardCharsets.UTF_8), "byte order mark"))
        .isEqualTo(Kind.COMPLETION_PROMPT);
    assertThat(
            assertSameRendering(
                "{\"messages\":[]}\n{}".getBytes(StandardCharsets.UTF_8), "two documents"))
        .isEqualTo(Kind.RAW_BODY);
  }

  @Test
  void shouldRenderEachCorpusTurnFromThePreviousTurnsRenderingAsFromTheStart() {
    // Given: conversations turn by turn, each body the one before with messages added
    String[][] files = {
      {"chat/oasst_en100_threads.jsonl", null},
      {"agentic/tau_bench_gpt4o_airline.jsonl", CorpusBodies.AIRLINE_TOOLS},
      {"agentic/swe_agent_trajectories.jsonl", null},
    };
    int resumed = 0;
    long bytesSkipped = 0;
    for (String[] file : files) {
      for (CorpusBodies.Conversation conversation :
          CorpusBodies.conversations(file[0], 200, file[1])) {
        PromptRenderer.Resume previous = null;
        for (byte[] body : conversation.bodies()) {
          // When
          PromptRenderer.Resumable rendering = PromptRenderer.render(body, previous);

          // Then
          assertSameAsFromTheStart(body, rendering, conversation.id());
          if (rendering.resumedAt() > 0) {
            resumed++;
            bytesSkipped += rendering.resumedAt();
          }
          previous = rendering.resume();
        }
      }
    }
    assertThat(resumed).isGreaterThan(1_000);
    assertThat(bytesSkipped).isGreaterThan(10_000_000L);
  }

  @Test
  void shouldRenderAnEditedBodyFromAnEarlierRenderingAsFromTheStart() throws Exception {
    // Given: random requests, then the same request with messages added, or damaged by one edit
    // anywhere (before, inside or after the messages the earlier rendering went through), or cut
    Random random = new Random(20261129L);
    byte[] alphabet =
        "{}[]\",:\\/ \n\t0123456789.-+eEtrufalsn\u0001xu".getBytes(StandardCharsets.UTF_8);
    int resumed = 0;
    int fromTheStart = 0;
    for (int i = 0; i < 20_000; i++) {
      ObjectNode request = randomRequest(random);
      byte[] earlier = Json.mapper().writeValueAsBytes(request);
      PromptRenderer.Resume resume = PromptRenderer.render(earlier, null).resume();
      byte[] body;
      if (random.nextBoolean() && request.get("messages") instanceof ArrayNode messages) {
        for (int m = 1 + random.nextInt(3); m > 0; m--) {
          messages.add(randomMessage(random));
        }
        body = Json.mapper().writeValueAsBytes(request);
      } else {
        body = mutate(earlier, random, alphabet);
      }

      // When
      PromptRenderer.Resumable rendering = PromptRenderer.render(body, resume);

      // Then
      assertSameAsFromTheStart(body, rendering, "request " + i);
      if (rendering.resumedAt() > 0) {
        resumed++;
      } else {
        fromTheStart++;
      }
    }
    assertThat(resumed).isGreaterThan(5_000);
    assertThat(fromTheStart).isGreaterThan(1_000);
  }

  /** The rendering is {@link PromptRenderer#render(byte[])}'s, and leaves the same points. */
  private static void assertSameAsFromTheStart(
      byte[] body, PromptRenderer.Resumable rendering, String what) {
    RenderedPrompt whole = PromptRenderer.render(body);
    assertThat(rendering.prompt().kind()).as(what).isEqualTo(whole.kind());
    assertThat(rendering.prompt().bytes()).as(what).isEqualTo(whole.bytes());
    PromptRenderer.Resume fresh = PromptRenderer.render(body, null).resume();
    PromptRenderer.Resume left = rendering.resume();
    assertThat(left == null).as(what).isEqualTo(fresh == null);
    if (left != null) {
      assertThat(left.points()).as(what).isEqualTo(fresh.points());
    }
  }

  private static byte[] mutate(byte[] seed, Random random, byte[] alphabet) {
    int at = random.nextInt(seed.length);
    byte[] out;
    switch (random.nextInt(4)) {
      case 0 -> {
        out = new byte[seed.length - 1];
        System.arraycopy(seed, 0, out, 0, at);
        System.arraycopy(seed, at + 1, out, at, seed.length - at - 1);
      }
      case 1 -> {
        out = new byte[seed.length + 1];
        System.arraycopy(seed, 0, out, 0, at);
        out[at] = alphabet[random.nextInt(alphabet.length)];
        System.arraycopy(seed, at, out, at + 1, seed.length - at);
      }
      case 2 -> {
        out = seed.clone();
        out[at] = alphabet[random.nextInt(alphabet.length)];
      }
      default -> out = java.util.Arrays.copyOf(seed, at);
    }
    return out;
  }

  @Test
  void shouldUnescapeEveryJsonStringAsJacksonDecodesIt() throws Exception {
    // Given
    Random random = new Random(7);
    for (int i = 0; i < 5_000; i++) {
      String text = randomText(random, 6);
      for (byte[] json :
          List.of(
              Json.mapper().writeValueAsBytes(text),
              Json.mapper()
                  .writer()
                  .with(JsonWriteFeature.ESCAPE_NON_ASCII)
                  .writeValueAsBytes(text))) {
        ByteSink out = new ByteSink(16);

        // When
        new JsonCursor(json).string(out);

        // Then
        assertThat(out.toByteArray()).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private static Kind assertSameRendering(byte[] body, String what) {
    RenderedPrompt streamed = PromptRenderer.render(body);
    String tree = TreeRenderer.render(body);
    String kind = tree.substring(0, tree.indexOf(':'));
    assertThat(streamed.kind().wireName()).as(what).isEqualTo(kind);
    if (streamed.kind() != Kind.RAW_BODY) {
      assertThat(new String(streamed.bytes(), StandardCharsets.UTF_8))
          .as(what)
          .isEqualTo(
              new String(
                  tree.substring(kind.length() + 1).getBytes(StandardCharsets.UTF_8),
                  StandardCharsets.UTF_8));
    }
    return streamed.kind();
  }

  private static ObjectNode randomRequest(Random random) {
    List<Runnable> fields = new ArrayList<>();
    ObjectNode request = NODES.objectNode();
    ArrayNode messages = NODES.arrayNode();
    int count = random.nextInt(6);
    for (int m = 0; m < count; m++) {
      messages.add(randomMessage(random));
    }
    fields.add(() -> request.put("model", randomText(random, 1)));
    fields.add(() -> request.set("messages", messages));
    if (random.nextInt(3) == 0) {
      ArrayNode tools = NODES.arrayNode();
      for (int t = random.nextInt(3); t > 0; t--) {
        ObjectNode tool = tools.addObject();
        tool.put("type", "function");
        tool.putObject("function").put("name", randomText(random, 1)).put("x", 1.5);
      }
      fields.add(() -> request.set("tools", tools));
    }
    if (random.nextInt(10) == 0) {
      fields.add(() -> request.put("tools", "not a list"));
    }
    fields.add(() -> request.put("temperature", 0.7));
    Collections.shuffle(fields, random);
    fields.forEach(Runnable::run);
    return request;
  }

  private static ObjectNode randomMessage(Random random) {
    ObjectNode message = NODES.objectNode();
    List<Runnable> fields = new ArrayList<>();
    if (random.nextInt(40) != 0) {
      String role = new String[] {"system", "user", "assistant", "tool"}[random.nextInt(4)];
      fields.add(() -> message.put("role", role));
    }
    switch (random.nextInt(6)) {
      case 0 -> fields.add(() -> message.putNull("content"));
      case 1 -> {
        ArrayNode parts = NODES.arrayNode();
        for (int p = random.nextInt(4); p > 0; p--) {
          switch (random.nextInt(4)) {
            case 0 -> parts.add(randomText(random, 3));
            case 1 ->
                parts
                    .addObject()
                    .put("type", "image_url")
                    .putObject("image_url")
                    .put("url", randomText(random, 2));
            default -> parts.addObject().put("text", randomText(random, 4)).put("type", "text");
          }
        }
        fields.add(() -> message.set("content", parts));
      }
      case 2 -> fields.add(() -> message.putObject("content").put("odd", randomText(random, 2)));
      default -> fields.add(() -> message.put("content", randomText(random, 8)));
    }
    if (random.nextInt(4) == 0) {
      fields.add(() -> message.put("name", randomText(random, 1)));
    }
    if (random.nextInt(4) == 0) {
      fields.add(() -> message.put("tool_call_id", randomText(random, 1)));
    }
    if (random.nextInt(4) == 0) {
      ArrayNode calls = NODES.arrayNode();
      ObjectNode call = calls.addObject();
      call.put("id", "call_" + random.nextInt(1000));
      call.putObject("function")
          .put("name", "f")
          .put("arguments", "{\"q\":\"" + randomText(random, 2) + "\"}");
      fields.add(() -> message.set("tool_calls", calls));
    }
    if (random.nextInt(6) == 0) {
      fields.add(() -> message.put("reasoning_content", randomText(random, 3)));
    }
    Collections.shuffle(fields, random);
    fields.forEach(Runnable::run);
    return message;
  }

  private static String randomText(Random random, int pieces) {
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(pieces + 1); i > 0; i--) {
      text.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return text.toString();
  }
}
