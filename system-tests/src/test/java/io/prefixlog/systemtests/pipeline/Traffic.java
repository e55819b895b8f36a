package io.prefixlog.systemtests.pipeline;

import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Realistic interleaved traffic for the fault-injection suite: real conversations from the bundled
 * corpora (agentic and chat), one raw event per assistant turn as the capture proxy would publish
 * it, sessions interleaved round-robin. Request ids are stable ({@code <conversation>#<turn>}), so
 * the ledger can tell a duplicate from a new request, and every event's record timestamp is its
 * capture time, which the test controls (stream time).
 */
final class Traffic {
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  /** One event to send: the record key, value and timestamp. */
  record Event(String sessionKey, String requestId, long ts, byte[] value) {}

  /** How old a capture time {@link #send} accepts: well within the raw topic's 24 h retention. */
  private static final Duration OLDEST_CAPTURE = Duration.ofHours(12);

  /** How far ahead: within the broker's {@code message.timestamp.after.max.ms} (1 h). */
  private static final Duration NEWEST_CAPTURE = Duration.ofMinutes(30);

  private final List<List<Event>> sessions;

  private Traffic(List<List<Event>> sessions) {
    this.sessions = sessions;
  }

  /**
   * The first {@code perFile} conversations of the tau-bench agentic file and of a chat file, their
   * turns {@code spacingMs} apart from {@code startMs} within a session.
   */
  static Traffic of(int perFile, long startMs, long spacingMs) {
    ReplayEvents events = new ReplayEvents(Pipeline.SECRET, "fault-suite");
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<List<Event>> sessions = new ArrayList<>();
    for (Path file :
        List.of(Pipeline.agentic().resolve("tau_bench_gpt4o_airline.jsonl"), Pipeline.chat())) {
      for (Conversation conversation : CorpusFile.read(file).stream().limit(perFile).toList()) {
        SessionKey key = events.sessionKey(conversation.id());
        List<Event> turns = new ArrayList<>();
        long ts = startMs;
        for (ChatRequest request : requests.of(conversation)) {
          String requestId = conversation.id() + "#" + request.turn();
          RawRequestEvent event = events.event(request, key, requestId, ts);
          turns.add(new Event(key.key(), requestId, ts, SERDE.toBytes(event)));
          ts += spacingMs;
        }
        if (turns.size() >= 2) {
          sessions.add(turns);
        }
      }
    }
    return new Traffic(sessions);
  }

  /** Every event, sessions interleaved round-robin (turn 1 of each, then turn 2, …). */
  List<Event> interleaved() {
    List<Event> out = new ArrayList<>();
    int most = sessions.stream().mapToInt(List::size).max().orElse(0);
    for (int turn = 0; turn < most; turn++) {
      for (List<Event> session : sessions) {
        if (turn < session.size()) {
          out.add(session.get(turn));
        }
      }
    }
    return out;
  }

  /** The first {@code turns} turns of every session, interleaved. */
  List<Event> firstTurns(int turns) {
    return interleaved().stream().filter(e -> turnOf(e) <= turns).toList();
  }

  /** The turns after the first {@code turns} of every session, interleaved. */
  List<Event> laterTurns(int turns) {
    return interleaved().stream().filter(e -> turnOf(e) > turns).toList();
  }

  /**
   * Per session, the kind of record ({@code full} or {@code delta}) that the stream app's encoder
   * writes for turn 2 with turn 1 as its only base: what a pipeline that lost no base writes.
   */
  Map<String, String> secondTurnKindsWithoutOutage() {
    Map<String, String> kinds = new HashMap<>();
    for (List<Event> session : sessions) {
      TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);
      Map<Long, byte[]> stored = new HashMap<>();
      SessionState state = SessionState.newChain("00000000");
      EncodedTurn turn = null;
      for (Event event : session.subList(0, 2)) {
        RawRequestEvent raw = SERDE.fromBytes(event.value());
        byte[] body =
            BodyEncoding.fromWireName(raw.bodyEncoding()).orElseThrow().decode(raw.body());
        turn = encoder.encode(state, body, true, stored::get, event.ts());
        if (turn.storeBody()) {
          stored.put(turn.seq(), body);
        }
        state = turn.newState();
      }
      kinds.put(session.get(0).sessionKey(), turn.isKeyframe() ? "full" : "delta");
    }
    return kinds;
  }

  /**
   * Per request id, the kind of record ({@code full} or {@code delta}) and, for a delta, its base
   * seq that the stream app's encoder writes when the session keeps its state and bases throughout
   * (as {@code kind} or {@code kind/base_seq}): what a pipeline that lost nothing writes.
   */
  Map<String, String> kindsWithoutDisturbance() {
    Map<String, String> kinds = new HashMap<>();
    for (List<Event> session : sessions) {
      TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);
      Map<Long, byte[]> stored = new HashMap<>();
      SessionState state = SessionState.newChain("00000000");
      for (Event event : session) {
        RawRequestEvent raw = SERDE.fromBytes(event.value());
        byte[] body =
            BodyEncoding.fromWireName(raw.bodyEncoding()).orElseThrow().decode(raw.body());
        EncodedTurn turn = encoder.encode(state, body, true, stored::get, event.ts());
        if (turn.storeBody()) {
          stored.put(turn.seq(), body);
        }
        turn.evictedSeqs().forEach(stored::remove);
        state = turn.newState();
        kinds.put(event.requestId(), turn.isKeyframe() ? "full" : "delta/" + turn.base().seq());
      }
    }
    return kinds;
  }

  /**
   * One first turn of a session of its own for each of {@code partitions} partitions (by the
   * default partitioner, as the raw topic and the repartition step place them), captured at {@code
   * ts}.
   */
  static List<Event> onePerPartition(int partitions, long ts) {
    List<Event> events = new ArrayList<>();
    Set<Integer> covered = new HashSet<>();
    for (int i = 0; covered.size() < partitions; i++) {
      String session = String.format("%032x", 0xa4ead000L + i);
      int partition =
          Utils.toPositive(Utils.murmur2(session.getBytes(StandardCharsets.UTF_8))) % partitions;
      if (!covered.add(partition)) {
        continue;
      }
      byte[] body =
          ("{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"user\",\"content\":"
                  + "\"a clock eight days ahead, partition "
                  + partition
                  + "\"}]}")
              .getBytes(StandardCharsets.UTF_8);
      String requestId = "ahead-" + partition;
      BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
      RawRequestEvent event =
          new RawRequestEvent(
              RawRequestEvent.SCHEMA_VERSION,
              requestId,
              ts,
              session,
              "header:x-session-id",
              "127.0.0.1",
              "fault-suite",
              null,
              "POST",
              "/v1/chat/completions",
              "prefixlog-demo",
              encoded.text(),
              encoded.encoding().wireName(),
              (long) body.length,
              Sha256.hex(body),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null);
      events.add(new Event(session, requestId, ts, SERDE.toBytes(event)));
    }
    return events;
  }

  int sessionCount() {
    return sessions.size();
  }

  private static int turnOf(Event e) {
    return Integer.parseInt(e.requestId().substring(e.requestId().lastIndexOf('#') + 1));
  }

  /** The same events with every timestamp moved by {@code shiftMs} (events rebuilt, same ids). */
  static List<Event> shifted(List<Event> events, long shiftMs) {
    List<Event> out = new ArrayList<>();
    for (Event e : events) {
      RawRequestEvent raw = SERDE.fromBytes(e.value());
      RawRequestEvent moved =
          new RawRequestEvent(
              raw.schemaVersion(),
              raw.requestId(),
              raw.ts() + shiftMs,
              raw.sessionKey(),
              raw.sessionKeySource(),
              raw.clientAddr(),
              raw.userAgent(),
              raw.headers(),
              raw.method(),
              raw.path(),
              raw.model(),
              raw.body(),
              raw.bodyEncoding(),
              raw.bodyLen(),
              raw.bodySha256(),
              raw.truncated(),
              raw.originalBodyLen(),
              raw.response(),
              null,
              null,
              null,
              null,
              null);
      out.add(new Event(e.sessionKey(), e.requestId(), e.ts() + shiftMs, SERDE.toBytes(moved)));
    }
    return out;
  }

  /**
   * The raw event of {@code identity} (session, request id, a millisecond later) carrying the body
   * of {@code other}: a client that reuses an id for another request.
   */
  static Event withBodyOf(Event identity, Event other) {
    RawRequestEvent id = SERDE.fromBytes(identity.value());
    RawRequestEvent body = SERDE.fromBytes(other.value());
    RawRequestEvent reused =
        new RawRequestEvent(
            id.schemaVersion(),
            id.requestId(),
            id.ts() + 1,
            id.sessionKey(),
            id.sessionKeySource(),
            id.clientAddr(),
            id.userAgent(),
            id.headers(),
            id.method(),
            id.path(),
            body.model(),
            body.body(),
            body.bodyEncoding(),
            body.bodyLen(),
            body.bodySha256(),
            body.truncated(),
            body.originalBodyLen(),
            null,
            null,
            null,
            null,
            null,
            null);
    return new Event(
        identity.sessionKey(), identity.requestId(), identity.ts() + 1, SERDE.toBytes(reused));
  }

  /**
   * Events to send, some of them exact resends of earlier ones.
   *
   * @param resends the positions in {@code events} that repeat an earlier event byte for byte
   */
  record WithRepeats(List<Event> events, Set<Integer> resends) {
    /** The distinct captures among the first {@code sent} events. */
    int distinct(int sent) {
      return sent - (int) resends.stream().filter(i -> i < sent).count();
    }
  }

  /**
   * {@code events} with, after every {@code every}th one, a gateway's retry of it as the capture
   * proxy records one (a capture of its own: {@code request_id} and {@code capture_id} its own, the
   * first attempt's id as {@code client_request_id}, the same body, captured half a second later),
   * and after every {@code every}th one from {@code back} on, shifted by half of {@code every}, an
   * exact resend of the event {@code back} places earlier (a spill resend of a send that had
   * landed).
   */
  static WithRepeats withRetriesAndResends(List<Event> events, int every, int back) {
    List<Event> out = new ArrayList<>();
    Set<Integer> resends = new HashSet<>();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      out.add(e);
      if (i % every == every - 1) {
        out.add(retryOf(e));
      }
      if (i >= back && i % every == every / 2) {
        resends.add(out.size());
        out.add(out.get(out.size() - 1 - back));
      }
    }
    return new WithRepeats(List.copyOf(out), Set.copyOf(resends));
  }

  /**
   * A retry of {@code first} as the capture proxy writes it (see {@link #withRetriesAndResends}).
   */
  static Event retryOf(Event first) {
    RawRequestEvent e = SERDE.fromBytes(first.value());
    String captureId = e.requestId() + "~retry";
    long ts = e.ts() + 500;
    RawRequestEvent retry =
        new RawRequestEvent(
            e.schemaVersion(),
            captureId,
            ts,
            e.sessionKey(),
            e.sessionKeySource(),
            e.clientAddr(),
            e.userAgent(),
            e.headers(),
            e.method(),
            e.path(),
            e.model(),
            e.body(),
            e.bodyEncoding(),
            e.bodyLen(),
            e.bodySha256(),
            e.truncated(),
            e.originalBodyLen(),
            e.response(),
            null,
            null,
            e.upstream(),
            captureId,
            e.requestId());
    return new Event(first.sessionKey(), captureId, ts, SERDE.toBytes(retry));
  }

  /** A producer of raw events that refreshes its metadata every second (sees new partitions). */
  static KafkaProducer<String, byte[]> producer(KafkaCluster kafka) {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    config.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 1000);
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 40 << 20);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    // Not idempotent, one request in flight: on the shared test broker, after other scenarios
    // SIGKILLed transactional producers, the idempotent producer was seen retrying a batch with
    // sequence 0 against a partition whose sequence had moved on (OutOfOrderSequenceException
    // every second until the batch expired). The suite's ledger counts distinct requests, so a
    // retry's duplicate could only make a scenario stricter.
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }

  /**
   * Sends {@code events} to {@code topic} keyed by session and waits until all are acknowledged.
   *
   * <p>The capture times, which are the record timestamps, must be recent: the broker applies each
   * topic's retention to record timestamps, not to arrival. Events captured longer ago than a
   * retention are deleted as they come (the raw topic keeps 24 h, the dedup store's changelog 48 h,
   * the deltas and lookups 7 days; for the compact,delete topics the log cleaner does it within a
   * second, taking each partition's first transaction before its commit marker lands), and the
   * broker refuses a timestamp more than an hour ahead ({@code message.timestamp.after.max.ms}).
   * Scenario 11 once used a fixed capture time that became 7 days old, and lost deltas that way.
   */
  static void send(KafkaProducer<String, byte[]> producer, String topic, List<Event> events)
      throws InterruptedException, ExecutionException, TimeoutException {
    long now = System.currentTimeMillis();
    for (Event e : events) {
      if (e.ts() < now - OLDEST_CAPTURE.toMillis() || e.ts() > now + NEWEST_CAPTURE.toMillis()) {
        throw new IllegalArgumentException(
            "event "
                + e.requestId()
                + " has capture time "
                + Instant.ofEpochMilli(e.ts())
                + ", outside ["
                + Instant.ofEpochMilli(now).minus(OLDEST_CAPTURE)
                + ", "
                + Instant.ofEpochMilli(now).plus(NEWEST_CAPTURE)
                + "]: the broker would delete it (retention) or refuse it; derive it from now");
      }
    }
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (Event e : events) {
      sent.add(producer.send(new ProducerRecord<>(topic, null, e.ts(), e.sessionKey(), e.value())));
    }
    for (Future<RecordMetadata> f : sent) {
      f.get(150, TimeUnit.SECONDS); // past delivery.timeout.ms: the producer reports first
    }
  }
}
