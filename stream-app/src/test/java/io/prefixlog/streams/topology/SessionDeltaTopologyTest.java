package io.prefixlog.streams.topology;

import static io.prefixlog.streams.topology.RawEvents.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.delta.DeltaDecoder;
import io.prefixlog.core.delta.DeltaException;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.session.SessionStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionDeltaTopologyTest {
  private static final String SESSION = "0123456789abcdef0123456789abcdef";
  private static final String SYSTEM = "You are a careful assistant. ".repeat(20);
  private static final Map<String, String> TOPICS =
      Map.of(
          "alpha", "why does the sky look blue at noon and red at dusk? ",
          "beta", "how do I bake sourdough bread with a stiff starter at home? ");
  private static final Map<String, String> ANSWERS =
      Map.of(
          "alpha", ": Rayleigh scattering, ünïcödé and 😀 included. ",
          "beta", ": Feed it twice, keep it at 24 °C, bake at 250 °C 🍞. ");

  @TempDir Path stateDir;
  @TempDir Path otherStateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, DeltaRecord> deltas;
  private TestOutputTopic<byte[], DeadLetter> deadLetters;
  private MeterRegistry registry;
  private final Map<String, byte[]> rebuilt = new HashMap<>();

  private void start(Map<String, String> settings) {
    start(settings, stateDir);
  }

  private void start(Map<String, String> settings, Path state) {
    Map<String, String> all = new HashMap<>(settings);
    all.put("PREFIXLOG_STATE_DIR", state.toString());
    StreamAppConfig config = StreamAppConfig.defaults(all);
    registry = new SimpleMeterRegistry();
    Properties properties = StreamApp.streamsProperties(config);
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry)), properties);
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
            JsonSerde.of(DeltaRecord.class).deserializer());
    deadLetters =
        driver.createOutputTopic(
            topics.deadLetters().name(),
            Serdes.ByteArray().deserializer(),
            JsonSerde.of(DeadLetter.class).deserializer());
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldWriteAKeyframeThenDeltasThatRebuildEveryTurnByteForByte() {
    // Given
    start(Map.of());
    List<byte[]> bodies = conversation("alpha", 6);

    // When
    bodies.forEach(body -> send(SESSION, body));

    // Then
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    String chain = out.get(0).value.chain();
    assertThat(chain).matches("[0-9a-f]{8}");
    assertThat(out)
        .extracting(kv -> kv.key)
        .containsExactly(
            SESSION + "/" + chain + "/1",
            SESSION + "/" + chain + "/2",
            SESSION + "/" + chain + "/3",
            SESSION + "/" + chain + "/4",
            SESSION + "/" + chain + "/5",
            SESSION + "/" + chain + "/6");
    assertThat(out).extracting(kv -> kv.value.chain()).containsOnly(chain);
    assertThat(out.get(0).value.kind()).isEqualTo("full");
    assertThat(out.get(0).value.keyframeReason()).isEqualTo("first_turn");
    for (int i = 1; i < out.size(); i++) {
      DeltaRecord delta = out.get(i).value;
      assertThat(delta.kind()).isEqualTo("delta");
      assertThat(delta.baseSeq()).isEqualTo(i);
      assertThat(delta.chainDepth()).isEqualTo(i);
      assertThat(delta.body()).isNull();
      // the shared history, then the new messages (whose repeated topic text is copied from the
      // history too), then the closing brackets
      assertThat(delta.ops().get(0)).isEqualTo(new DeltaOp.Copy(0, delta.prefixLen().intValue()));
      assertThat(delta.ops().get(delta.ops().size() - 1)).isInstanceOf(DeltaOp.Copy.class);
    }
    assertRebuilds(out, bodies);
    assertThat(Meters.count(registry, "prefixlog_turns_total", "kind", "delta")).isEqualTo(5);
    assertThat(Meters.count(registry, "prefixlog_turns_total", "kind", "full")).isEqualTo(1);
    assertThat(Meters.count(registry, "prefixlog_body_bytes_in_total"))
        .isEqualTo(bodies.stream().mapToLong(b -> b.length).sum());
  }

  @Test
  void shouldEncodeEachInterleavedConversationAgainstItsOwnTurns() {
    // Given: two chats that share one (fallback) session key, interleaved
    start(Map.of());
    List<byte[]> alpha = conversation("alpha", 4);
    List<byte[]> beta = conversation("beta", 4);

    // When
    for (int i = 0; i < 4; i++) {
      send(SESSION, alpha.get(i));
      send(SESSION, beta.get(i));
    }

    // Then: seq 1,3,5,7 are alpha, 2,4,6,8 beta; from the second round on, each turn is encoded
    // against its own chat's last turn
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    assertThat(out).hasSize(8);
    for (int i = 2; i < 8; i++) {
      assertThat(out.get(i).value.baseSeq()).as("base of seq %d", i + 1).isEqualTo(i - 1);
    }
    List<byte[]> interleaved = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      interleaved.add(alpha.get(i));
      interleaved.add(beta.get(i));
    }
    assertRebuilds(out, interleaved);
  }

  @Test
  void shouldEncodeARegeneratedTurnAsJustItsNewQuestion() {
    // Given: turn 3 is regenerated from turn 2's history with a different question
    start(Map.of());
    List<byte[]> bodies = conversation("alpha", 3);
    byte[] branch =
        chat("alpha", 2, ",{\"role\":\"user\",\"content\":\"Actually, something else?\"}");

    // When
    bodies.forEach(body -> send(SESSION, body));
    send(SESSION, branch);

    // Then
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    DeltaRecord regenerated = out.get(3).value;
    assertThat(regenerated.kind()).isEqualTo("delta");
    // Turns 2 and 3 both hold the whole history up to the branch point, so either costs only the
    // new question; turn 3 also shares the opening of the next message object, and is newer.
    assertThat(regenerated.baseSeq()).isEqualTo(3);
    assertThat(insertedText(regenerated))
        .isEqualTo("user\",\"content\":\"Actually, something else?");
    List<byte[]> all = new ArrayList<>(bodies);
    all.add(branch);
    assertRebuilds(out, all);
  }

  @Test
  void shouldCostOnlyTheEditWhenTheSystemPromptCarriesATimestamp() {
    // Given
    start(Map.of());
    byte[] first = timestamped("2026-11-21T10:00:00.000Z", 3);
    byte[] second = timestamped("2026-11-21T10:00:07.431Z", 4);

    // When
    send(SESSION, first);
    send(SESSION, second);

    // Then: the timestamp and the new message are inserted, the rest is copied
    DeltaRecord delta = deltas.readKeyValuesToList().get(1).value;
    assertThat(delta.kind()).isEqualTo("delta");
    String a = new String(first, StandardCharsets.UTF_8);
    String b = new String(second, StandardCharsets.UTF_8);
    int firstDifference = 0;
    while (a.charAt(firstDifference) == b.charAt(firstDifference)) {
      firstDifference++;
    }
    assertThat(delta.prefixLen()).isEqualTo(firstDifference);
    assertThat(insertedText(delta).length()).isLessThan(180);
    // The edit costs its own characters: copy up to it, insert "7.431", copy the rest of the
    // history (the new turn after it may copy repeated text from earlier turns too).
    assertThat(delta.ops().get(0)).isEqualTo(new DeltaOp.Copy(0, firstDifference));
    assertThat(delta.ops().get(1)).isEqualTo(new DeltaOp.Insert("7.431"));
    DeltaOp.Copy history = (DeltaOp.Copy) delta.ops().get(2);
    assertThat(history.from()).isEqualTo(firstDifference + 5);
    assertThat(history.len()).isGreaterThan(a.codePointCount(0, a.length()) - firstDifference - 40);
  }

  @Test
  void shouldWriteAKeyframeEveryKTurnsToBoundRebuildChains() {
    // Given
    start(Map.of("PREFIXLOG_KEYFRAME_INTERVAL", "3"));
    List<byte[]> bodies = conversation("alpha", 7);

    // When
    bodies.forEach(body -> send(SESSION, body));

    // Then
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    assertThat(out)
        .extracting(kv -> kv.value.kind() + ":" + kv.value.chainDepth())
        .containsExactly("full:0", "delta:1", "delta:2", "full:0", "delta:1", "delta:2", "full:0");
    assertThat(out.get(3).value.keyframeReason()).isEqualTo("chain_limit");
    assertRebuilds(out, bodies);
  }

  @Test
  void shouldWriteNonUtf8BodiesAsBase64KeyframesAndKeepEncodingTheOthers() {
    // Given
    start(Map.of());
    List<byte[]> bodies = new ArrayList<>(conversation("alpha", 3));
    byte[] binary = {'{', (byte) 0xC3, (byte) 0x28, '}', (byte) 0xFF};
    bodies.add(2, binary);

    // When
    bodies.forEach(body -> send(SESSION, body));

    // Then
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    DeltaRecord keyframe = out.get(2).value;
    assertThat(keyframe.kind()).isEqualTo("full");
    assertThat(keyframe.keyframeReason()).isEqualTo("not_utf8");
    assertThat(keyframe.bodyEncoding()).isEqualTo("base64");
    assertThat(Base64.getDecoder().decode(keyframe.body())).isEqualTo(binary);
    assertThat(out.get(3).value.kind()).isEqualTo("delta");
    assertThat(out.get(3).value.baseSeq()).isEqualTo(2);
    assertRebuilds(out, bodies);
  }

  @Test
  void shouldKeepAUtf8BodyAProducerSentInBase64AsABaseOfTheNextDelta() {
    // Given: a producer that writes every body in base64, UTF-8 text or not
    start(Map.of());
    List<byte[]> bodies = conversation("alpha", 2);
    RawRequestEvent plain = RawEvents.of(SESSION, bodies.get(0));
    RawRequestEvent inBase64 =
        new RawRequestEvent(
            plain.schemaVersion(),
            plain.requestId(),
            plain.ts(),
            plain.sessionKey(),
            plain.sessionKeySource(),
            plain.clientAddr(),
            plain.userAgent(),
            plain.headers(),
            plain.method(),
            plain.path(),
            plain.model(),
            Base64.getEncoder().encodeToString(bodies.get(0)),
            BodyEncoding.BASE64.wireName(),
            plain.bodyLen(),
            plain.bodySha256(),
            plain.truncated(),
            plain.originalBodyLen(),
            plain.response(),
            null,
            null,
            null,
            null,
            null);

    // When
    raw.pipeInput(SESSION, RawEvents.bytes(inBase64));
    send(SESSION, bodies.get(1));

    // Then: a base64 keyframe, and the next turn a delta against it
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    assertThat(out.get(0).value.kind()).isEqualTo("full");
    assertThat(out.get(0).value.keyframeReason()).isEqualTo("first_turn");
    assertThat(out.get(0).value.bodyEncoding()).isEqualTo("base64");
    assertThat(out.get(1).value.kind()).isEqualTo("delta");
    assertThat(out.get(1).value.baseSeq()).isEqualTo(1);
    assertRebuilds(out, bodies);
  }

  @Test
  void shouldForgetTheBasesOfIdleSessionsButKeepCountingTheirTurns() {
    // Given
    start(Map.of("PREFIXLOG_SESSION_TTL", "10m", "PREFIXLOG_EVICTION_INTERVAL", "1m"));
    List<byte[]> bodies = conversation("alpha", 3);
    Instant t0 = Instant.parse("2026-11-24T12:00:00Z");
    raw.pipeInput(SESSION, RawEvents.bytes(RawEvents.of(SESSION, bodies.get(0))), t0);
    raw.pipeInput(SESSION, RawEvents.bytes(RawEvents.of(SESSION, bodies.get(1))), t0);
    assertThat(Meters.gaugeValue(registry, "prefixlog_live_sessions")).isEqualTo(1.0);

    // When: eleven minutes of stream time later
    raw.pipeInput(
        SESSION, RawEvents.bytes(RawEvents.of(SESSION, bodies.get(2))), t0.plusSeconds(11 * 60));

    // Then
    assertThat(Meters.count(registry, "prefixlog_sessions_evicted_total")).isEqualTo(1);
    DeltaRecord third = deltas.readKeyValuesToList().get(2).value;
    assertThat(third.seq()).isEqualTo(3);
    assertThat(third.kind()).isEqualTo("full");
    assertThat(third.keyframeReason()).isEqualTo("no_close_base");
  }

  @Test
  void shouldIndexEverySessionByWhenItIsDueAndEvictExactlyTheDueOnes() {
    // Given: six sessions last seen 0, 2, 4, 6, 8 and 10 minutes after t0 (TTL 10m, seq retention
    // 1h), the last three with a second turn
    start(
        Map.of(
            "PREFIXLOG_SESSION_TTL", "10m",
            "PREFIXLOG_SESSION_SEQ_RETENTION", "1h",
            "PREFIXLOG_OUTPUT_RETENTION", "1h",
            "PREFIXLOG_EVICTION_INTERVAL", "1m"));
    Instant t0 = Instant.parse("2026-11-24T12:00:00Z");
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String session = String.format("%032x", i + 1);
      sessions.add(session);
      for (byte[] body : conversation(i % 2 == 0 ? "alpha" : "beta", i < 3 ? 1 : 2)) {
        raw.pipeInput(
            session, RawEvents.bytes(RawEvents.of(session, body)), t0.plusSeconds(120L * i));
      }
    }
    KeyValueStore<String, byte[]> index = driver.getKeyValueStore(SessionStores.IDLE_INDEX);
    assertThat(keys(index))
        .hasSize(6)
        .first()
        .asString()
        .startsWith(String.format("%019d/", t0.toEpochMilli() + 600_000));

    // When: stream time at t0 + 15m 1s: the sessions last seen at 0, 2 and 4 minutes are past the
    // TTL
    String late = String.format("%032x", 99);
    raw.pipeInput(
        late,
        RawEvents.bytes(RawEvents.of(late, conversation("alpha", 1).get(0))),
        t0.plusSeconds(15 * 60 + 1));

    // Then: exactly those three lost their bases; each session has one entry, due when its state
    // says (the dormant three at their seq retention)
    assertThat(Meters.count(registry, "prefixlog_sessions_evicted_total")).isEqualTo(3);
    KeyValueStore<String, byte[]> states = driver.getKeyValueStore(SessionStores.STATE);
    List<String> expected = new ArrayList<>();
    for (String session : sessions) {
      SessionState state = SessionStateCodec.decode(states.get(session));
      boolean evicted = sessions.indexOf(session) < 3;
      assertThat(state.bases().isEmpty()).as(session).isEqualTo(evicted);
      long wait = evicted ? 3_600_000 : 600_000;
      expected.add(String.format("%019d/%s", state.lastSeenMs() + wait, session));
    }
    expected.add(
        String.format("%019d/%s", t0.plusSeconds(15 * 60 + 1).toEpochMilli() + 600_000, late));
    assertThat(keys(index)).containsExactlyElementsOf(expected.stream().sorted().toList());

    // When: one of the dormant sessions is erased
    long eraseAt = t0.plusSeconds(15 * 60 + 2).toEpochMilli();
    byte[] order =
        JsonSerde.of(EraseRequest.class)
            .toBytes(EraseRequest.forSession("erase-1", eraseAt, sessions.get(0), null));
    raw.pipeInput(
        new TestRecord<>(
            sessions.get(0), order, ControlHeaders.markErase(new RecordHeaders()), eraseAt));

    // Then: its entry is gone with its state
    assertThat(states.get(sessions.get(0))).isNull();
    assertThat(keys(index)).hasSize(6).noneMatch(k -> k.endsWith("/" + sessions.get(0)));
  }

  @Test
  void shouldStartANewChainOnlyAfterTheSeqRetentionHasPassed() {
    // Given
    start(
        Map.of(
            "PREFIXLOG_SESSION_TTL", "10m",
            "PREFIXLOG_SESSION_SEQ_RETENTION", "1h",
            "PREFIXLOG_OUTPUT_RETENTION", "1h"));
    List<byte[]> bodies = conversation("alpha", 3);
    Instant t0 = Instant.parse("2026-11-24T12:00:00Z");
    raw.pipeInput(SESSION, RawEvents.bytes(RawEvents.of(SESSION, bodies.get(0))), t0);
    raw.pipeInput(
        SESSION, RawEvents.bytes(RawEvents.of(SESSION, bodies.get(1))), t0.plusSeconds(59 * 60));

    // When: idle for 61 minutes of stream time
    raw.pipeInput(
        SESSION, RawEvents.bytes(RawEvents.of(SESSION, bodies.get(2))), t0.plusSeconds(120 * 60));

    // Then: seq 1 again, in a chain of its own
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    assertThat(out.get(1).value.seq()).isEqualTo(2);
    assertThat(out.get(1).value.chain()).isEqualTo(out.get(0).value.chain());
    DeltaRecord third = out.get(2).value;
    assertThat(third.seq()).isEqualTo(1);
    assertThat(third.keyframeReason()).isEqualTo("first_turn");
    assertThat(third.chain()).isNotEqualTo(out.get(0).value.chain());
    assertThat(out).extracting(kv -> kv.key).doesNotHaveDuplicates();
    // Whether the punctuator forgot the state first ("new") or the turn found it expired ("idle")
    // depends on when stream-time punctuation runs; either way two chains were started.
    assertThat(
            Meters.count(registry, "prefixlog_chains_started_total", "cause", "new")
                + Meters.count(registry, "prefixlog_chains_started_total", "cause", "idle"))
        .isEqualTo(2);
  }

  @Test
  void shouldCarryTheEngineCacheFiguresOfTheRequest() {
    // Given
    start(Map.of());
    byte[] body = conversation("alpha", 1).get(0);

    // When
    raw.pipeInput(
        SESSION, RawEvents.bytes(RawEvents.of(SESSION, body, new Usage(1000L, 20L, 800L))));

    // Then
    DeltaRecord record = deltas.readValue();
    assertThat(record.promptTokens()).isEqualTo(1000L);
    assertThat(record.cachedTokens()).isEqualTo(800L);
    assertThat(record.prefixCacheHitRate()).isEqualTo(0.8);
    assertThat(record.response().status()).isEqualTo(200);
  }

  @Test
  void shouldDeadLetterEveryKindOfBadInputAndKeepProcessing() throws Exception {
    // Given
    start(Map.of("PREFIXLOG_MAX_BODY_BYTES", "4KiB"));
    byte[] good = conversation("alpha", 1).get(0);
    RawRequestEvent valid = RawEvents.of(SESSION, good);
    Map<String, byte[]> bad = new java.util.LinkedHashMap<>();
    bad.put("invalid_json", utf8("{\"schema_version\":1,"));
    bad.put("unknown_schema_version", withField(valid, "schema_version", 7));
    bad.put("missing_field", withoutField(valid, "body_sha256"));
    bad.put("invalid_field", withField(valid, "body_encoding", "gzip"));
    bad.put("body_too_large", RawEvents.bytes(RawEvents.of(SESSION, new byte[5000])));
    bad.put("body_mismatch", withField(valid, "body_sha256", Sha256.hex(utf8("other"))));

    // When
    bad.values().forEach(value -> raw.pipeInput(SESSION, value));
    raw.pipeInput("another-key", RawEvents.bytes(valid));
    raw.pipeInput(SESSION, RawEvents.bytes(valid));

    // Then
    List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
    List<String> reasons = new ArrayList<>(bad.keySet());
    reasons.add("key_mismatch");
    assertThat(letters).extracting(r -> r.value().reason()).containsExactlyElementsOf(reasons);
    List<byte[]> inputs = new ArrayList<>(bad.values());
    inputs.add(RawEvents.bytes(valid));
    for (int i = 0; i < letters.size(); i++) {
      DeadLetter letter = letters.get(i).value();
      assertThat(letter.sourceTopic()).isEqualTo("prefixlog.requests.raw");
      assertThat(letter.sourcePartition()).isEqualTo(0);
      assertThat(letter.sourceOffset()).isEqualTo(i);
      assertThat(letter.producer()).isEqualTo("stream-app");
      assertThat(Base64.getDecoder().decode(letter.originalValue())).isEqualTo(inputs.get(i));
      assertThat(letter.detail()).doesNotContain("careful assistant");
    }
    assertThat(letters.get(6).key()).isEqualTo(utf8("another-key"));
    assertThat(deltas.readKeyValuesToList())
        .extracting(kv -> kv.key)
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .matches(SESSION + "/[0-9a-f]{8}/1");
    for (String reason : reasons) {
      assertThat(Meters.count(registry, "prefixlog_dead_letters_total", "reason", reason))
          .as(reason)
          .isEqualTo(1);
    }
  }

  @Test
  void shouldWriteTheSameRecordsForFramedEventsAsForTheirJsonForm() throws Exception {
    // Given: one conversation sent as version 1 JSON, the same events framed (version 2), and a
    // body that is not UTF-8 in both forms
    List<byte[]> bodies = new ArrayList<>(conversation("alpha", 4));
    bodies.add(new byte[] {'{', (byte) 0xFF, '}'});
    List<RawRequestEvent> events = new ArrayList<>();
    for (byte[] body : bodies) {
      events.add(RawEvents.of(SESSION, body));
    }
    start(Map.of());
    events.forEach(e -> raw.pipeInput(SESSION, RawEvents.bytes(e)));
    List<KeyValue<String, DeltaRecord>> fromJson = deltas.readKeyValuesToList();
    close();

    // When: through an app of its own
    start(Map.of(), otherStateDir);
    for (int i = 0; i < events.size(); i++) {
      raw.pipeInput(SESSION, RawEventFrame.frame(events.get(i), bodies.get(i)));
    }
    List<KeyValue<String, DeltaRecord>> fromFrames = deltas.readKeyValuesToList();

    // Then: record for record the same, keyframes' bodies included, and none dead-lettered
    assertThat(fromFrames).hasSize(bodies.size());
    assertThat(fromFrames).usingRecursiveFieldByFieldElementComparator().isEqualTo(fromJson);
    assertThat(fromFrames.get(0).value.body())
        .isEqualTo(new String(bodies.get(0), StandardCharsets.UTF_8));
    assertThat(fromFrames.get(4).value.bodyEncoding()).isEqualTo("base64");
    assertThat(deadLetters.isEmpty()).isTrue();
    assertRebuilds(fromFrames, bodies);
  }

  @Test
  void shouldMatchTheGoldenTopologyDescription() throws Exception {
    // Given
    StreamAppConfig config = StreamAppConfig.defaults(Map.of());

    // When
    String described =
        PrefixlogTopology.build(config, new StreamAppMetrics(new SimpleMeterRegistry()))
            .describe()
            .toString();

    // Then
    String golden =
        Files.readString(Path.of("src/test/resources/topology-golden.txt"), StandardCharsets.UTF_8);
    assertThat(described).isEqualTo(golden);
  }

  // --- helpers ---

  private static List<String> keys(KeyValueStore<String, byte[]> store) {
    List<String> keys = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> all = store.all()) {
      all.forEachRemaining(entry -> keys.add(entry.key));
    }
    return keys;
  }

  private void send(String session, byte[] body) {
    raw.pipeInput(session, RawEvents.bytes(RawEvents.of(session, body)));
  }

  /** The request bodies of the first {@code turns} turns of a synthetic chat. */
  private static List<byte[]> conversation(String name, int turns) {
    List<byte[]> bodies = new ArrayList<>();
    for (int turn = 1; turn <= turns; turn++) {
      bodies.add(chat(name, turn, ""));
    }
    return bodies;
  }

  private static byte[] chat(String name, int turns, String extra) {
    StringBuilder messages = new StringBuilder();
    messages.append("{\"role\":\"system\",\"content\":\"").append(SYSTEM).append("\"}");
    for (int t = 1; t <= turns; t++) {
      messages
          .append(",{\"role\":\"user\",\"content\":\"")
          .append(name)
          .append(" question ")
          .append(t)
          .append(": ")
          .append(TOPICS.get(name).repeat(3))
          .append("\"}");
      if (t < turns) {
        messages
            .append(",{\"role\":\"assistant\",\"content\":\"")
            .append(name)
            .append(" answer ")
            .append(t)
            .append(ANSWERS.get(name).repeat(4))
            .append("\"}");
      }
    }
    messages.append(extra);
    return utf8("{\"model\":\"test-model\",\"messages\":[" + messages + "],\"stream\":false}");
  }

  private static byte[] timestamped(String timestamp, int turns) {
    String body = new String(chat("alpha", turns, ""), StandardCharsets.UTF_8);
    return utf8(
        body.replaceFirst("You are a careful", "Now: " + timestamp + ". You are a careful"));
  }

  private static String insertedText(DeltaRecord delta) {
    StringBuilder text = new StringBuilder();
    for (DeltaOp op : delta.ops()) {
      if (op instanceof DeltaOp.Insert insert) {
        text.append(insert.text());
      }
    }
    return text.toString();
  }

  private void assertRebuilds(List<KeyValue<String, DeltaRecord>> out, List<byte[]> bodies) {
    assertThat(out).hasSameSizeAs(bodies);
    for (int i = 0; i < out.size(); i++) {
      DeltaRecord record = out.get(i).value;
      byte[] body;
      if (record.isKeyframe()) {
        body = BodyEncoding.fromWireName(record.bodyEncoding()).orElseThrow().decode(record.body());
      } else {
        byte[] base =
            rebuilt.get(DeltaRecord.key(record.sessionKey(), record.chain(), record.baseSeq()));
        assertThat(Sha256.hex(base)).isEqualTo(record.baseSha256());
        try {
          body = DeltaDecoder.apply(base, record.ops());
        } catch (DeltaException e) {
          throw new AssertionError(e);
        }
      }
      rebuilt.put(out.get(i).key, body);
      assertThat(body).as("turn %s", out.get(i).key).isEqualTo(bodies.get(i));
      assertThat(Sha256.hex(body)).isEqualTo(record.bodySha256());
      assertThat(record.bodyLen()).isEqualTo(body.length);
    }
  }

  private static byte[] withField(RawRequestEvent event, String field, Object value)
      throws Exception {
    var tree =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            Json.mapper().readTree(RawEvents.bytes(event));
    tree.set(field, Json.mapper().valueToTree(value));
    return Json.mapper().writeValueAsBytes(tree);
  }

  private static byte[] withoutField(RawRequestEvent event, String field) throws Exception {
    var tree =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            Json.mapper().readTree(RawEvents.bytes(event));
    tree.remove(field);
    return Json.mapper().writeValueAsBytes(tree);
  }
}
