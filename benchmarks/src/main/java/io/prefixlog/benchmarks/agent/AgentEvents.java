package io.prefixlog.benchmarks.agent;

import io.prefixlog.benchmarks.harness.CapturedEvents;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.tools.corpus.AgentSessions;
import io.prefixlog.tools.replay.ReplayEvents;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The raw request events a capture proxy publishes for generated agent requests, keyed as it keys
 * them: with a session header per conversation, or with none, all through one gateway address,
 * model and user agent, as most OpenAI-SDK clients behind a gateway arrive.
 */
public final class AgentEvents {
  static final String SECRET = "prefixlog-benchmark-session-secret";
  static final String GATEWAY_ADDR = "10.0.0.1";
  static final String USER_AGENT = "OpenAI/Python 1.99.0";

  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  /** How the client identifies its sessions. */
  public enum Variant {
    KEYED("keyed", "X-Session-ID per conversation"),
    NO_HEADER("no header", "no session header, one gateway address, model and user agent");

    final String label;
    final String description;

    Variant(String label, String description) {
      this.label = label;
      this.description = description;
    }
  }

  /**
   * One record for {@code requests.raw}.
   *
   * @param key the derived session key (the record key)
   * @param value the raw event's JSON
   * @param conversationId the generated conversation it belongs to, whatever its key
   * @param bodyLen the request body's bytes
   * @param timestamp the capture time, the record's timestamp
   */
  public record Event(
      String key, byte[] value, String conversationId, int bodyLen, long timestamp) {}

  private final SessionKeyDeriver deriver =
      new SessionKeyDeriver(
          SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);

  private final boolean framed;

  /** Each capture time is {@code minGapMs} plus up to {@code spreadMs} after the one before. */
  private final int minGapMs;

  private final int spreadMs;

  /**
   * Events 50 to 550 ms apart, an agent fleet's pace.
   *
   * @param framed write events as the capture proxy does (framed, version 2), else as version 1
   *     JSON, as kcat and middlewares do
   */
  public AgentEvents(boolean framed) {
    this(framed, 50, 500);
  }

  private AgentEvents(boolean framed, int minGapMs, int spreadMs) {
    this.framed = framed;
    this.minGapMs = minGapMs;
    this.spreadMs = spreadMs;
  }

  /**
   * The same events with capture times 1 to 40 ms apart: what many live sessions at once look like,
   * so that tens of thousands of turns stay within the session TTL of stream time.
   */
  public AgentEvents dense() {
    return new AgentEvents(framed, 1, 40);
  }

  /**
   * The events of {@code requests}, in their order, keyed as {@code variant} says.
   *
   * @param startMs the first capture time: recent, or the topics' time retention deletes them
   */
  public List<Event> of(
      List<AgentSessions.AgentRequest> requests, Variant variant, long seed, long startMs) {
    Random random = new Random(seed);
    long clockMs = startMs;
    Map<String, Long> previousPromptTokens = new HashMap<>();
    List<Event> events = new ArrayList<>(requests.size());
    for (AgentSessions.AgentRequest request : requests) {
      byte[] body = request.body();
      Map<String, String> headers =
          variant == Variant.KEYED ? Map.of("x-session-id", request.conversationId()) : Map.of();
      SessionKey key = deriver.derive(headers, BodyFields.read(body), GATEWAY_ADDR, USER_AGENT);
      clockMs += minGapMs + random.nextInt(spreadMs);
      long promptTokens = body.length / 4;
      Long previous = previousPromptTokens.put(request.conversationId(), promptTokens);
      // vLLM reports the prefix it reused in 16-token blocks and omits zero.
      Long cached = previous == null ? null : Math.min(previous, promptTokens) / 16 * 16;
      double latency = 800 + random.nextInt(20_000);
      ResponseInfo response =
          CapturedEvents.answer(
              latency,
              150 + random.nextInt(2_000),
              new Usage(promptTokens, 40L + random.nextInt(600), cached),
              "chatcmpl-" + Long.toHexString(random.nextLong()));
      RawRequestEvent event =
          ReplayEvents.chatCompletion(
              CapturedEvents.requestId(random),
              clockMs,
              key,
              GATEWAY_ADDR,
              USER_AGENT,
              headers.isEmpty() ? null : headers,
              AgentSessions.MODEL,
              body,
              response);
      byte[] value = framed ? RawEventFrame.frame(event, body) : SERDE.toBytes(event);
      events.add(new Event(key.key(), value, request.conversationId(), body.length, clockMs));
    }
    return events;
  }
}
