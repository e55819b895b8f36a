package io.prefixlog.benchmarks.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.benchmarks.agent.AgentEvents;
import io.prefixlog.benchmarks.harness.CapturedEvents;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.tools.corpus.AgentSessions;
import io.prefixlog.tools.corpus.AgentShape;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Raw request events of multi-turn agent sessions, built deterministically from the text of the
 * bundled agentic corpora, shaped so that the mean body is about 20 KB.
 *
 * <p>A session has 10 to 30 turns. Turn 1 is a system prompt of 2 to 4 KB (a corpus system message,
 * cut or extended with corpus text) and a user message of 1 to 2 KB. Every later turn is the
 * previous request plus the assistant's answer and the next user message, 1 to 2 KB of new text
 * together, as an OpenAI client resends the whole history. The expected mean body is 3 KB + 1.5 KB
 * × E[t] over all turns, about 20 KB; {@link Workload#meanBodyBytes()} reports what came out. The
 * text is cut from the corpora's user, assistant and tool messages at random word boundaries.
 *
 * <p>{@code concurrent} sessions are live at once and the next event comes from a random one of
 * them, so one session's turns are spread over the topic as live traffic spreads them; a finished
 * session is replaced by a new one until {@code count} events exist. Events are built the way the
 * replay tool builds them ({@code x-session-id} header, {@code SessionKeyDeriver}, exact body
 * bytes, SHA-256), plus a response with usage as the capture proxy reports it.
 */
final class SyntheticSessions {
  static final String MODEL = "Qwen/Qwen2.5-Coder-32B-Instruct";
  static final String SECRET = "prefixlog-benchmark-session-secret";
  static final String USER_AGENT = "prefixlog-bench/1 (agent)";
  static final String CLIENT_ADDR = "127.0.0.1";
  static final int MIN_TURNS = 10;
  static final int MAX_TURNS = 30;
  static final int MIN_SYSTEM_CHARS = 2_000;
  static final int MAX_SYSTEM_CHARS = 4_000;
  static final int MIN_NEW_CHARS = 1_000;
  static final int MAX_NEW_CHARS = 2_000;

  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  /**
   * One record for {@code requests.raw}.
   *
   * @param key the session key (the record key)
   * @param value the raw event's JSON
   * @param bodyLen the request body's length in bytes
   */
  record Event(String key, byte[] value, int bodyLen) {}

  /**
   * The events in topic order, and what they are made of.
   *
   * @param sessions sessions started (the last ones may be cut short by {@code count})
   */
  record Workload(List<Event> events, int sessions, int concurrent, long seed) {
    Workload {
      events = List.copyOf(events);
    }

    /**
     * Long coding-agent sessions ({@link AgentSessions}) instead: {@code shape}'s sessions, all
     * interleaved, each turn keyed by its session header, as JSON events (framed by {@link
     * #framed}).
     */
    static Workload agent(Path corpora, AgentShape shape) {
      List<Event> events = new ArrayList<>();
      for (AgentEvents.Event e :
          new AgentEvents(false)
              .of(
                  AgentSessions.fromCorpora(corpora, shape).requests(),
                  AgentEvents.Variant.KEYED,
                  shape.seed(),
                  System.currentTimeMillis())) {
        events.add(new Event(e.key(), e.value(), e.bodyLen()));
      }
      return new Workload(events, shape.sessions(), shape.sessions(), shape.seed());
    }

    /**
     * The same events framed (raw event version 2: a JSON header, then the body's bytes), as the
     * capture proxy writes them.
     */
    Workload framed() {
      List<Event> framed = new ArrayList<>(events.size());
      for (Event e : events) {
        RawRequestEvent event = SERDE.fromBytes(e.value());
        byte[] body =
            BodyEncoding.fromWireName(event.bodyEncoding()).orElseThrow().decode(event.body());
        framed.add(new Event(e.key(), RawEventFrame.frame(event, body), e.bodyLen()));
      }
      return new Workload(framed, sessions, concurrent, seed);
    }

    long bodyBytes() {
      return events.stream().mapToLong(Event::bodyLen).sum();
    }

    long valueBytes() {
      return events.stream().mapToLong(e -> e.value().length).sum();
    }

    long keyBytes() {
      return events.stream().mapToLong(e -> e.key().length()).sum();
    }

    double meanBodyBytes() {
      return (double) bodyBytes() / events.size();
    }

    double meanValueBytes() {
      return (double) valueBytes() / events.size();
    }

    /** The given percentile (0-100) of the body lengths. */
    int bodyPercentile(double p) {
      int[] lengths = events.stream().mapToInt(Event::bodyLen).sorted().toArray();
      int index = (int) Math.min(lengths.length - 1, Math.floor(p / 100.0 * lengths.length));
      return lengths[index];
    }
  }

  private final Random random;
  private final String text;
  private final List<String> systemPrompts;
  private final SessionKeyDeriver deriver =
      new SessionKeyDeriver(
          SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);
  private final HexFormat hex = HexFormat.of();
  private long clockMs = 1_795_000_000_000L; // a fixed event clock: equal seeds, equal records

  private SyntheticSessions(long seed, String text, List<String> systemPrompts) {
    this.random = new Random(seed);
    this.text = text;
    this.systemPrompts = systemPrompts;
  }

  /**
   * Builds {@code count} events from the corpora under {@code corporaDir/agentic}.
   *
   * @param concurrent sessions live at once
   */
  static Workload build(Path corporaDir, int count, int concurrent, long seed) {
    List<String> pieces = new ArrayList<>();
    List<String> systems = new ArrayList<>();
    for (Path file : Corpora.jsonl(corporaDir.resolve("agentic"))) {
      for (Conversation conversation : CorpusFile.read(file)) {
        for (ObjectNode message : conversation.messages()) {
          JsonNode content = message.get("content");
          if (content == null || !content.isTextual() || content.asText().isBlank()) {
            continue;
          }
          if ("system".equals(message.path("role").asText())) {
            systems.add(content.asText());
          } else {
            pieces.add(content.asText());
          }
        }
      }
    }
    if (pieces.isEmpty() || systems.isEmpty()) {
      throw new IllegalArgumentException(
          "no message text under "
              + corporaDir.resolve("agentic")
              + " (expected the *.jsonl corpora)");
    }
    SyntheticSessions sessions = new SyntheticSessions(seed, String.join("\n\n", pieces), systems);
    return sessions.generate(count, concurrent, seed);
  }

  private Workload generate(int count, int concurrent, long seed) {
    List<Event> events = new ArrayList<>(count);
    Session[] live = new Session[concurrent];
    int started = 0;
    while (events.size() < count) {
      int slot = random.nextInt(concurrent);
      if (live[slot] == null || live[slot].finished()) {
        live[slot] = new Session(started++);
      }
      events.add(live[slot].next());
    }
    return new Workload(events, started, concurrent, seed);
  }

  /** One conversation: its history grows by an answer and a user message per turn. */
  private final class Session {
    private final String conversationId;
    private final SessionKey key;
    private final int turns;
    private final List<ObjectNode> messages = new ArrayList<>();
    private int turn;
    private long previousPromptTokens;

    Session(int index) {
      this.conversationId = "bench-" + index;
      this.key =
          deriver.derive(headers(), BodyFields.EMPTY, CLIENT_ADDR, SyntheticSessions.USER_AGENT);
      this.turns = MIN_TURNS + random.nextInt(MAX_TURNS - MIN_TURNS + 1);
      String system = systemPrompts.get(index % systemPrompts.size());
      int systemChars = between(MIN_SYSTEM_CHARS, MAX_SYSTEM_CHARS);
      messages.add(message("system", fit(system, systemChars)));
    }

    boolean finished() {
      return turn >= turns;
    }

    Event next() {
      int newChars = between(MIN_NEW_CHARS, MAX_NEW_CHARS);
      if (turn == 0) {
        messages.add(message("user", slice(newChars)));
      } else {
        int answer = newChars / 5 + random.nextInt(newChars * 2 / 5 + 1);
        messages.add(message("assistant", slice(answer)));
        messages.add(message("user", slice(newChars - answer)));
      }
      turn++;
      byte[] body = body();
      long promptTokens = body.length / 4;
      // vLLM reports the prefix it reused in 16-token blocks and omits zero.
      Long cached = turn == 1 ? null : previousPromptTokens / 16 * 16;
      previousPromptTokens = promptTokens;
      clockMs += 20 + random.nextInt(200);
      double latency = 400 + random.nextInt(8_000);
      ResponseInfo response =
          CapturedEvents.answer(
              latency,
              80 + random.nextInt(400),
              new Usage(promptTokens, 50L + random.nextInt(400), cached),
              "chatcmpl-" + hex.formatHex(longBytes(random.nextLong())));
      RawRequestEvent event =
          ReplayEvents.chatCompletion(
              CapturedEvents.requestId(random),
              clockMs,
              key,
              CLIENT_ADDR,
              SyntheticSessions.USER_AGENT,
              headers(),
              MODEL,
              body,
              response);
      return new Event(key.key(), SERDE.toBytes(event), body.length);
    }

    private Map<String, String> headers() {
      return Map.of("x-session-id", conversationId);
    }

    private byte[] body() {
      return ChatRequests.body(MODEL, messages, 0.2, 2048);
    }
  }

  private static ObjectNode message(String role, String content) {
    ObjectNode message = JsonNodeFactory.instance.objectNode();
    message.put("role", role);
    message.put("content", content);
    return message;
  }

  /** {@code prompt} cut to {@code chars}, or extended with corpus text to reach it. */
  private String fit(String prompt, int chars) {
    if (prompt.length() >= chars) {
      return cut(prompt, 0, chars);
    }
    return prompt + "\n\n" + slice(chars - prompt.length() - 2);
  }

  /** About {@code chars} characters of corpus text starting at a random word boundary. */
  private String slice(int chars) {
    int n = Math.max(1, Math.min(chars, text.length() - 1));
    int start = random.nextInt(text.length() - n);
    int space = text.indexOf(' ', start);
    if (space >= 0 && space + 1 + n <= text.length() && space - start < 64) {
      start = space + 1;
    }
    return cut(text, start, n);
  }

  /** A substring that does not split a surrogate pair. */
  private static String cut(String s, int start, int chars) {
    int end = Math.min(s.length(), start + chars);
    if (end < s.length() && end > start && Character.isHighSurrogate(s.charAt(end - 1))) {
      end--;
    }
    if (start > 0 && start < end && Character.isLowSurrogate(s.charAt(start))) {
      start++;
    }
    return s.substring(start, end);
  }

  private int between(int min, int max) {
    return min + random.nextInt(max - min + 1);
  }

  private static byte[] longBytes(long v) {
    byte[] bytes = new byte[8];
    for (int i = 7; i >= 0; i--) {
      bytes[i] = (byte) v;
      v >>>= 8;
    }
    return bytes;
  }
}
