package io.prefixlog.bridge.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Production-shaped synthetic traffic for the training run of the image's AOT cache ({@link
 * AotTraining}, through {@link WarmUp} with {@link WarmUp.Shape#PRODUCTION}): what the cache's
 * method profiles should be made of, where the start-up warm-up's traffic is mostly small bodies
 * (many exchanges in a bounded 2 s) and an upstream that answers at once. In ProxyBenchmark's cold
 * runs a cache trained by that warm-up alone gives a worse first minute than one trained by a proxy
 * that served real 20 KB traffic (+2.45 against +1.89 ms added p99), the JIT recompiling under the
 * real mix.
 *
 * <p>Each synthetic client holds conversations of {@link #TURNS} turns under one session id: turn
 * {@code t} sends the system prompt, the {@code t} earlier user and assistant messages and a new
 * user message, so bodies grow from about 2 KB to about 25 KB within a conversation (mean about 13
 * KB), as a chat client resending its history does. The text has what real text has for the
 * encoder: JSON escapes (newlines, quotes, a backslash) and multi-byte UTF-8. Every other
 * conversation streams. The upstream answers after {@link #ANSWER_DELAY_MS} like an engine, a
 * completion of about 700 bytes or an SSE stream of {@link #STREAM_CHUNKS} chunks written one every
 * millisecond, then the usage.
 */
final class TrainingTraffic {
  /** Turns per conversation (the body grows with each). */
  static final int TURNS = 12;

  /** The upstream's time to the first byte. */
  static final long ANSWER_DELAY_MS = 20;

  /** Chunks of a streamed answer before the usage chunk. */
  static final int STREAM_CHUNKS = 24;

  /** One synthetic request: its session id, whether it streams, its body. */
  record Request(String session, boolean stream, Buffer body) {}

  private static final String[] WORDS = {
    "the",
    "cache",
    "proxy",
    "request",
    "token",
    "latency",
    "session",
    "prefix",
    "model",
    "answer",
    "engine",
    "stream",
    "context",
    "window",
    "capture",
    "résumé",
    "naïve",
    "café",
    "größe",
    "日本語",
    "—",
    "données",
    "queue",
    "kafka",
    "event",
    "loop",
    "budget",
    "tail",
    "p99",
    "warm",
    "start",
    "config",
    "deploy",
    "rollout",
    "replica",
    "\\\"quoted\\\"",
    "path\\\\to",
    "x=1;",
    "{json}",
    "[list]",
    "a/b",
    "tab\\t",
    "emoji🙂"
  };

  private static final String SYSTEM_PROMPT = text(new SplittableRandom(7), 1200);

  private TrainingTraffic() {}

  /** The {@code n}-th request of {@code clients} synthetic clients taking turns (n mod clients). */
  static Request request(int n, int clients) {
    int client = n % clients;
    int k = n / clients;
    int conversation = k / TURNS;
    int turn = k % TURNS;
    boolean stream = (client + conversation) % 2 == 1;
    long seed = ((long) client << 32) ^ conversation;
    StringBuilder json = new StringBuilder(30_000);
    json.append("{\"model\":\"training\",\"messages\":[{\"role\":\"system\",\"content\":\"")
        .append(SYSTEM_PROMPT)
        .append("\"}");
    for (int t = 0; t <= turn; t++) {
      SplittableRandom random = new SplittableRandom(seed * 31 + t);
      json.append(",{\"role\":\"user\",\"content\":\"")
          .append(text(random, 300 + random.nextInt(1200)))
          .append("\"}");
      if (t < turn) {
        json.append(",{\"role\":\"assistant\",\"content\":\"")
            .append(text(random, 400 + random.nextInt(1600)))
            .append("\"}");
      }
    }
    json.append("],\"max_tokens\":512,\"temperature\":0.7");
    if (stream) {
      json.append(",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    }
    json.append('}');
    return new Request(
        "training-" + client + "-" + conversation,
        stream,
        Buffer.buffer(json.toString().getBytes(StandardCharsets.UTF_8)));
  }

  /** JSON string text (already escaped) of about {@code bytes} bytes, in lines of words. */
  static String text(SplittableRandom random, int bytes) {
    StringBuilder text = new StringBuilder(bytes + 32);
    while (text.length() < bytes) {
      text.append(WORDS[random.nextInt(WORDS.length)]);
      int r = random.nextInt(24);
      text.append(r == 0 ? ".\\n" : r == 1 ? ", " : " ");
    }
    return text.toString();
  }

  /** The loopback upstream's answer to a request whose body is {@code body}. */
  static void answer(Vertx vertx, HttpServerRequest request, Buffer body) {
    boolean stream = body.toString(StandardCharsets.UTF_8).contains("\"stream\":true");
    int promptTokens = body.length() / 4;
    vertx.setTimer(
        ANSWER_DELAY_MS,
        id -> {
          if (!stream) {
            String content = text(new SplittableRandom(promptTokens), 700);
            request
                .response()
                .putHeader("Content-Type", "application/json")
                .end(
                    "{\"id\":\"chatcmpl-training\",\"object\":\"chat.completion\",\"model\":"
                        + "\"training\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                        + "\"assistant\",\"content\":\""
                        + content
                        + "\"},\"finish_reason\":\"stop\"}],"
                        + usage(promptTokens, 175)
                        + "}");
            return;
          }
          HttpServerResponse response =
              request.response().setChunked(true).putHeader("Content-Type", "text/event-stream");
          int[] sent = {0};
          vertx.setPeriodic(
              1,
              timer -> {
                if (response.closed()) {
                  vertx.cancelTimer(timer);
                  return;
                }
                if (sent[0] < STREAM_CHUNKS) {
                  sent[0]++;
                  response.write(
                      "data: {\"id\":\"chatcmpl-training\",\"object\":\"chat.completion.chunk\","
                          + "\"model\":\"training\",\"choices\":[{\"index\":0,\"delta\":"
                          + "{\"content\":\""
                          + WORDS[(promptTokens + sent[0]) % WORDS.length]
                          + " \"},\"finish_reason\":null}],\"usage\":null}\n\n");
                  return;
                }
                vertx.cancelTimer(timer);
                response.end(
                    "data: {\"id\":\"chatcmpl-training\",\"object\":\"chat.completion.chunk\","
                        + "\"model\":\"training\",\"choices\":[],"
                        + usage(promptTokens, STREAM_CHUNKS)
                        + "}\n\ndata: [DONE]\n\n");
              });
        });
  }

  private static String usage(int promptTokens, int completionTokens) {
    return "\"usage\":{\"prompt_tokens\":"
        + promptTokens
        + ",\"completion_tokens\":"
        + completionTokens
        + ",\"total_tokens\":"
        + (promptTokens + completionTokens)
        + "}";
  }
}
