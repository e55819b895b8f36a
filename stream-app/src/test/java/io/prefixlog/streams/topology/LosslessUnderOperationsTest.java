package io.prefixlog.streams.topology;

import static io.prefixlog.streams.topology.RawEvents.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operational holes of issue 12 that a single task can show: a session that outlives its seq
 * retention, a raw event that arrives twice, a request id reused, and a backlog processed after an
 * outage longer than the TTL. Every test checks the compacted view of the deltas topic the way
 * {@code reconstruct} does: each distinct request stored once, each body rebuilt byte for byte.
 */
class LosslessUnderOperationsTest {
  private static final String SESSION = "0123456789abcdef0123456789abcdef";
  private static final String OTHER = "fedcba9876543210fedcba9876543210";
  private static final Instant T0 = Instant.parse("2026-11-24T12:00:00Z");

  @TempDir java.nio.file.Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, byte[]> deltas;
  private TestOutputTopic<String, byte[]> lookups;
  private TestOutputTopic<byte[], DeadLetter> deadLetters;
  private MeterRegistry registry;
  private final Map<String, byte[]> compactedDeltas = new LinkedHashMap<>();
  private final Map<String, byte[]> sentBodies = new HashMap<>();

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldNeverReuseADeltaKeyWhenASessionOutlivesItsSeqRetention() {
    // Given: a session with two turns, then idle for longer than the seq retention
    start(
        Map.of(
            "PREFIXLOG_SESSION_TTL", "10m",
            "PREFIXLOG_SESSION_SEQ_RETENTION", "1h",
            "PREFIXLOG_OUTPUT_RETENTION", "1h"));
    send(SESSION, "req-1", T0, chat(SESSION, 1));
    send(SESSION, "req-2", T0.plusSeconds(60), chat(SESSION, 2));
    send(OTHER, "other-1", T0.plus(Duration.ofMinutes(90)), chat(OTHER, 1));
    driver.advanceWallClockTime(Duration.ofMinutes(90));

    // When: the session resumes
    send(SESSION, "req-3", T0.plus(Duration.ofMinutes(91)), chat(SESSION, 3));
    send(SESSION, "req-4", T0.plus(Duration.ofMinutes(92)), chat(SESSION, 4));

    // Then: four distinct keys for the session, and every body rebuilds from the compacted topic
    List<KeyValue<String, byte[]>> out = drainDeltas();
    assertThat(out).hasSize(5);
    assertThat(out.stream().map(kv -> kv.key).distinct()).hasSize(5);
    assertEveryRequestRebuildsOnce(5);
  }

  @Test
  void shouldStoreARawEventThatArrivesTwiceAsOneTurn() {
    // Given
    start(Map.of());
    byte[] first = event(SESSION, "req-1", T0, chat(SESSION, 1));
    byte[] second = event(SESSION, "req-2", T0.plusSeconds(5), chat(SESSION, 2));

    // When: both are produced twice (a spill resend, a client retry)
    pipe(SESSION, first, T0);
    pipe(SESSION, second, T0.plusSeconds(5));
    pipe(SESSION, first, T0.plusSeconds(6));
    pipe(SESSION, second, T0.plusSeconds(7));

    // Then
    List<KeyValue<String, byte[]>> out = drainDeltas();
    assertThat(out).hasSize(2);
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(2);
    assertThat(deadLetters.isEmpty()).isTrue();
    assertEveryRequestRebuildsOnce(2);
    assertThat(lookupKeys()).hasSize(2);
  }

  @Test
  void shouldStoreARepeatedRequestIdThatComesWithADifferentBodyAsARequestOfItsOwn() {
    // Given
    start(Map.of());
    send(SESSION, "req-1", T0, chat(SESSION, 1));

    // When: the same id, another body (a client that reuses its ids)
    byte[] other = event(SESSION, "req-1", T0.plusSeconds(1), chat(SESSION, 2));
    pipe(SESSION, other, T0.plusSeconds(1));

    // Then: two turns, no dead letter
    assertThat(drainDeltas()).hasSize(2);
    assertThat(deadLetters.isEmpty()).isTrue();
    assertEveryRequestRebuildsOnce(2);
  }

  @Test
  void shouldKeepTheChunkLookupsOfTwoClientsThatSendTheSameRequestId() {
    // Given
    start(Map.of());

    // When: two sessions (two clients) send X-Request-Id "retry-me"
    send(SESSION, "retry-me", T0, chat(SESSION, 1));
    send(OTHER, "retry-me", T0.plusSeconds(1), chat(OTHER, 2));

    // Then: two lookups under two keys, neither overwrites the other under compaction
    assertThat(lookupKeys()).hasSize(2).doesNotHaveDuplicates();
    assertEveryRequestRebuildsOnce(2);
  }

  @Test
  void shouldEncodeABacklogOlderThanTheTtlAgainstItsBasesAfterAnOutage() {
    // Given: one turn processed, then an outage of two hours (wall clock) before the backlog
    start(Map.of("PREFIXLOG_SESSION_TTL", "30m", "PREFIXLOG_EVICTION_INTERVAL", "1m"));
    send(SESSION, "req-1", T0, chat(SESSION, 1));
    driver.advanceWallClockTime(Duration.ofHours(2));

    // When: the backlog, captured a minute apart, is processed now
    for (int turn = 2; turn <= 5; turn++) {
      send(SESSION, "req-" + turn, T0.plusSeconds(60L * turn), chat(SESSION, turn));
    }

    // Then: no turn of the backlog lost its base
    List<KeyValue<String, byte[]>> out = drainDeltas();
    assertThat(out).hasSize(5);
    for (KeyValue<String, byte[]> record : out.subList(1, 5)) {
      assertThat(new String(record.value, java.nio.charset.StandardCharsets.UTF_8))
          .contains("\"kind\":\"delta\"");
    }
    assertThat(Meters.count(registry, "prefixlog_sessions_evicted_total")).isZero();
    assertEveryRequestRebuildsOnce(5);
  }

  @Test
  void shouldForgetIdleBasesByStreamTimeNotByTheWallClock() {
    // Given
    start(Map.of("PREFIXLOG_SESSION_TTL", "10m", "PREFIXLOG_EVICTION_INTERVAL", "1m"));
    send(SESSION, "req-1", T0, chat(SESSION, 1));

    // When: other traffic moves stream time past the TTL
    send(OTHER, "other-1", T0.plus(Duration.ofMinutes(11)), chat(OTHER, 1));
    send(OTHER, "other-2", T0.plus(Duration.ofMinutes(12)), chat(OTHER, 2));
    send(SESSION, "req-2", T0.plus(Duration.ofMinutes(13)), chat(SESSION, 2));

    // Then
    assertThat(Meters.count(registry, "prefixlog_sessions_evicted_total")).isEqualTo(1);
    List<KeyValue<String, byte[]>> out = drainDeltas();
    assertThat(new String(out.get(3).value, java.nio.charset.StandardCharsets.UTF_8))
        .contains("\"keyframe_reason\":\"no_close_base\"");
    assertEveryRequestRebuildsOnce(4);
  }

  @Test
  void shouldWriteABodyWhoseJsonWouldNotFitARecordAsABase64KeyframeThatDoes() {
    // Given: a 1 MiB body of control characters (valid UTF-8, six bytes each as JSON text)
    start(Map.of("PREFIXLOG_MAX_BODY_BYTES", "1MiB"));
    send(SESSION, "req-1", T0, chat(SESSION, 1));
    byte[] controls = new byte[1 << 20];
    java.util.Arrays.fill(controls, (byte) 1);

    // When: that body, then the next turn, which repeats it
    send(SESSION, "req-2", T0.plusSeconds(1), controls);
    byte[] next = controls.clone();
    next[next.length - 1] = '!';
    send(SESSION, "req-3", T0.plusSeconds(2), next);

    // Then: the record fits the largest record the app writes, and rebuilds; its body is still a
    // base, so the next turn is a delta against the base64 keyframe
    List<KeyValue<String, byte[]>> out = drainDeltas();
    assertThat(out).hasSize(3);
    long limit = io.prefixlog.schemas.RecordLimits.maxRecordBytes(1 << 20);
    assertThat((long) out.get(1).value.length).isLessThanOrEqualTo(limit);
    String json = new String(out.get(1).value, java.nio.charset.StandardCharsets.UTF_8);
    assertThat(json)
        .contains("\"keyframe_reason\":\"record_size\"")
        .contains("\"body_encoding\":\"base64\"");
    assertThat(new String(out.get(2).value, java.nio.charset.StandardCharsets.UTF_8))
        .contains("\"kind\":\"delta\"")
        .contains("\"base_seq\":2");
    assertThat(Meters.count(registry, "prefixlog_keyframes_total", "reason", "record_size"))
        .isEqualTo(1);
    assertEveryRequestRebuildsOnce(3);
  }

  @Test
  void shouldEncodeARawEventWithoutAKeyInItsSessionThoughARepartitionDropsNullKeys() {
    // Given: a session's first turn with its key, then a producer that sends none
    start(Map.of());
    send(SESSION, "req-1", T0, chat(SESSION, 1));

    // When
    raw.pipeInput((String) null, event(SESSION, "req-2", T0.plusSeconds(1), chat(SESSION, 2)), T0);

    // Then: the second turn is a delta of the same chain: it reached the session's state
    List<KeyValue<String, byte[]>> out = drainDeltas();
    assertThat(out).hasSize(2);
    String chainKey = out.get(0).key.substring(0, out.get(0).key.lastIndexOf('/'));
    assertThat(out.get(1).key).isEqualTo(chainKey + "/2");
    assertThat(new String(out.get(1).value, java.nio.charset.StandardCharsets.UTF_8))
        .contains("\"kind\":\"delta\"");
    assertThat(deadLetters.isEmpty()).isTrue();
    assertEveryRequestRebuildsOnce(2);
  }

  @Test
  void shouldDeadLetterANullKeyedInputThatIsNotJsonWithItsNullKey() {
    // Given
    start(Map.of());

    // When
    raw.pipeInput((String) null, utf8("not json"), T0);

    // Then: one dead letter, with the null key it came with and its raw-topic coordinates
    assertThat(drainDeltas()).isEmpty();
    List<org.apache.kafka.streams.test.TestRecord<byte[], DeadLetter>> letters =
        deadLetters.readRecordsToList();
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).key()).isNull();
    assertThat(letters.get(0).value().reason()).isEqualTo("invalid_json");
    assertThat(letters.get(0).value().sourceTopic()).isEqualTo("prefixlog.requests.raw");
    assertThat(letters.get(0).value().sourceOffset()).isZero();
  }

  // --- helpers ---

  private void start(Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(settings);
    all.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    StreamAppConfig config = StreamAppConfig.defaults(all);
    registry = new SimpleMeterRegistry();
    Properties properties = StreamApp.streamsProperties(config);
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry)),
            properties,
            T0.minusSeconds(3600));
    Topics topics = config.topics();
    raw =
        driver.createInputTopic(
            topics.requestsRaw().name(),
            Serdes.String().serializer(),
            Serdes.ByteArray().serializer());
    deltas =
        driver.createOutputTopic(
            topics.sessionDeltas().name(),
            Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    lookups =
        driver.createOutputTopic(
            topics.chunkLookups().name(),
            Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    deadLetters =
        driver.createOutputTopic(
            topics.deadLetters().name(),
            Serdes.ByteArray().deserializer(),
            JsonSerde.of(DeadLetter.class).deserializer());
  }

  private void send(String session, String requestId, Instant ts, byte[] body) {
    pipe(session, event(session, requestId, ts, body), ts);
  }

  private void pipe(String session, byte[] event, Instant ts) {
    raw.pipeInput(session, event, ts);
  }

  private byte[] event(String session, String requestId, Instant ts, byte[] body) {
    sentBodies.put(Sha256.hex(body), body);
    return RawEvents.bytes(RawEvents.of(session, requestId, ts.toEpochMilli(), body));
  }

  private List<KeyValue<String, byte[]>> drainDeltas() {
    List<KeyValue<String, byte[]>> out = deltas.readKeyValuesToList();
    out.forEach(kv -> compactedDeltas.put(kv.key, kv.value));
    return out;
  }

  private List<String> lookupKeys() {
    return lookups.readKeyValuesToList().stream().map(kv -> kv.key).toList();
  }

  /**
   * Rebuilds the compacted deltas topic (the newest record per key) with the reconstruct tool's
   * rebuilder, and checks that every body sent is rebuilt exactly once and nothing else is.
   */
  private void assertEveryRequestRebuildsOnce(int distinctRequests) {
    drainDeltas();
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    compactedDeltas.forEach((key, value) -> rebuilder.addTopicRecord(key, value, key));
    List<String> rebuilt = new ArrayList<>();
    RebuildReport report =
        rebuilder.run(
            new RebuildListener() {
              @Override
              public void onVerifiedBody(String sessionKey, long seq, byte[] body) {
                rebuilt.add(Sha256.hex(body));
              }
            });
    assertThat(report.problems()).isEmpty();
    assertThat(report.passed(false)).isTrue();
    assertThat(rebuilt).hasSize(distinctRequests).doesNotHaveDuplicates();
    assertThat(sentBodies.keySet()).containsAll(rebuilt);
  }

  /** The request body of turn {@code turns} of one synthetic chat (shared prefix grows). */
  private static byte[] chat(String session, int turns) {
    StringBuilder messages = new StringBuilder();
    messages
        .append("{\"role\":\"system\",\"content\":\"")
        .append("You are a careful assistant of ")
        .append(session)
        .append(". ")
        .append("You are a careful assistant. ".repeat(20))
        .append("\"}");
    for (int t = 1; t <= turns; t++) {
      messages
          .append(",{\"role\":\"user\",\"content\":\"question ")
          .append(t)
          .append(": why is the sky blue at noon and red at dusk? ".repeat(3))
          .append("\"}");
      if (t < turns) {
        messages
            .append(",{\"role\":\"assistant\",\"content\":\"answer ")
            .append(t)
            .append(": Rayleigh scattering, ünïcödé and 😀 included. ".repeat(4))
            .append("\"}");
      }
    }
    return utf8("{\"model\":\"test-model\",\"messages\":[" + messages + "]}");
  }
}
