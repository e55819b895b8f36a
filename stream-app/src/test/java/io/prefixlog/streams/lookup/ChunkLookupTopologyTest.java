package io.prefixlog.streams.lookup;

import static io.prefixlog.streams.lookup.LookupInputs.bytes;
import static io.prefixlog.streams.lookup.LookupInputs.event;
import static io.prefixlog.streams.lookup.LookupInputs.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkLookupTopologyTest {
  private static final String SOURCE = "raw-requests";
  private static final String SESSION = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";
  private static final String OTHER_SESSION = "e2b8f0c4a1d94756b3e0c8a2f5d17b94";

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, ChunkLookupRecord> lookups;
  private TestOutputTopic<String, byte[]> lookupBytes;
  private MeterRegistry registry;
  private StreamAppConfig config;

  /**
   * The app's topology (the lookups sit under the session-delta processor) with this chunk size and
   * without the KV index.
   */
  private void start(int chunkSize, Map<String, String> settings) {
    Map<String, String> all = new LinkedHashMap<>(settings);
    all.put("PREFIXLOG_CHUNK_SIZE_BYTES", Integer.toString(chunkSize));
    all.put("PREFIXLOG_KV_INDEX_ENABLED", "false");
    config = config(all);
    registry = new SimpleMeterRegistry();
    open(PrefixlogTopology.build(config, new StreamAppMetrics(registry)));
  }

  private StreamAppConfig config(Map<String, String> settings) {
    Map<String, String> all = new LinkedHashMap<>(settings);
    all.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    return StreamAppConfig.defaults(all);
  }

  private void open(Topology topology) {
    driver = new TopologyTestDriver(topology, StreamApp.streamsProperties(config));
    Topics topics = config.topics();
    raw =
        driver.createInputTopic(
            topics.requestsRaw().name(),
            Serdes.String().serializer(),
            Serdes.ByteArray().serializer());
    lookups =
        driver.createOutputTopic(
            topics.chunkLookups().name(),
            Serdes.String().deserializer(),
            JsonSerde.of(ChunkLookupRecord.class).deserializer());
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldEmitOneLookupPerRequestKeyedByItsTurnAndChainedAcrossTheTurnsOfASession() {
    // Given: three real airline runs, each its own session, interleaved turn by turn
    start(256, Map.of());
    List<List<byte[]>> runs = LookupInputs.airlineRuns(3);
    String[] sessions = {SESSION, OTHER_SESSION, "0123456789abcdef0123456789abcdef"};
    List<String> requestIds = new ArrayList<>();
    Map<String, String> sessionOf = new LinkedHashMap<>();
    int turns = runs.stream().mapToInt(List::size).max().orElseThrow();

    // When
    for (int turn = 0; turn < turns; turn++) {
      for (int r = 0; r < runs.size(); r++) {
        if (turn < runs.get(r).size()) {
          String id = "req-" + r + "-" + turn;
          requestIds.add(id);
          sessionOf.put(id, sessions[r]);
          raw.pipeInput(
              sessions[r],
              bytes(
                  event(
                      id,
                      1_700_000_000_000L + turn,
                      sessions[r],
                      "gpt-4o",
                      runs.get(r).get(turn),
                      null)));
        }
      }
    }

    // Then: one record per request, in order, keyed by its turn, carrying its session
    List<KeyValue<String, ChunkLookupRecord>> out = lookups.readKeyValuesToList();
    assertThat(out).extracting(kv -> kv.value.requestId()).containsExactlyElementsOf(requestIds);
    Map<String, List<String>> previous = new LinkedHashMap<>();
    List<List<String>> resolved = new ArrayList<>();
    int extended = 0;
    long chunks = 0;
    long listed = 0;
    long seqLen = 0;
    for (KeyValue<String, ChunkLookupRecord> kv : out) {
      ChunkLookupRecord record = kv.value;
      assertThat(kv.key).matches(record.sessionKey() + "/[0-9a-f]{8}/[0-9]+");
      assertThat(record.sessionKey()).isEqualTo(sessionOf.get(record.requestId()));
      assertThat(record.chunked()).isEqualTo("chat_messages");
      // the first turn of a chain lists every hash; every later one refers to its previous turn
      List<String> before = previous.get(record.sessionKey());
      assertThat(record.isV2()).isTrue();
      assertThat(record.isWhole()).as(kv.key).isEqualTo(before == null);
      List<String> all = record.resolve(before);
      assertThat(all).hasSize((int) (record.seqLen() / 256));
      resolved.add(all);
      // Each turn appends to the previous turn of its session: its hashes start with all of them,
      // and only those after them are listed
      if (before != null) {
        assertThat(all.size()).isGreaterThanOrEqualTo(before.size());
        assertThat(all.subList(0, before.size())).as(kv.key).isEqualTo(before);
        assertThat(record.prefixChunks()).isEqualTo(before.size());
        extended++;
      }
      previous.put(record.sessionKey(), all);
      chunks += all.size();
      listed += record.tailHashes().size();
      seqLen += record.seqLen();
    }
    assertThat(extended).isEqualTo(out.size() - runs.size());
    assertThat(listed).isLessThan(chunks / 3);
    // All three runs open with the same airline policy, so their first chunks are shared
    assertThat(resolved.get(1).subList(0, 20))
        .isEqualTo(resolved.get(0).subList(0, 20))
        .isEqualTo(resolved.get(2).subList(0, 20));
    assertThat(Meters.count(registry, "prefixlog_chunk_lookups_total", "chunked", "chat_messages"))
        .isEqualTo(out.size());
    // only the chunks a turn added were hashed; the rest came from its previous turn
    assertThat(Meters.count(registry, "prefixlog_chunks_hashed_total")).isEqualTo(listed);
    assertThat(Meters.count(registry, "prefixlog_chunk_hashes_reused_total"))
        .isEqualTo(chunks - listed);
    assertThat(Meters.count(registry, "prefixlog_chunked_bytes_total")).isEqualTo(seqLen);
  }

  @Test
  void shouldWriteTheGoldenRecordOfAKnownSmallRequest() {
    // Given: its rendering is "<|system|>\nYou are a terse assistant.<|end|>\n<|user|>\nName
    // three primes, ünïcödé 😀.<|end|>\n", 98 bytes; the hashes come from Python's hashlib
    start(32, Map.of());

    // When
    String json = goldenRequestsRecord();

    // Then: the first turn of its chain, so a whole version 2 record
    assertThat(json)
        .isEqualTo(
            "{\"timestamp\":1.749633401877E9,\"request_id\":\"req-golden\","
                + "\"model_name\":\"llama\",\"chunk_size\":32,\"seq_len\":98,\"session_key\":\""
                + SESSION
                + "\","
                + "\"hash_algo\":\"sha256_chain_64\",\"chunk_unit\":\"bytes\","
                + "\"chunked\":\"chat_messages\",\"prompt_tokens\":30,\"cached_tokens\":0,"
                + "\"schema_version\":2,\"prefix_chunks\":0,"
                + "\"tail_hashes\":[\"0x079d3328184567e4\",\"0xd3801d01a63579f5\","
                + "\"0x9ebf251fbd61f216\"]}");
  }

  @Test
  void shouldWriteVersion1RecordsWhileUpgradingFromGeneration1() {
    // Given: a rolling upgrade from a build that wrote version 1
    start(32, Map.of("PREFIXLOG_UPGRADE_FROM", "1"));

    // When
    String json = goldenRequestsRecord();

    // Then: the record that build wrote, byte for byte
    assertThat(json)
        .isEqualTo(
            "{\"timestamp\":1.749633401877E9,\"request_id\":\"req-golden\","
                + "\"model_name\":\"llama\",\"chunk_size\":32,\"seq_len\":98,"
                + "\"chunk_hashes\":[\"0x079d3328184567e4\",\"0xd3801d01a63579f5\","
                + "\"0x9ebf251fbd61f216\"],\"session_key\":\""
                + SESSION
                + "\","
                + "\"hash_algo\":\"sha256_chain_64\",\"chunk_unit\":\"bytes\","
                + "\"chunked\":\"chat_messages\",\"prompt_tokens\":30,\"cached_tokens\":0}");
  }

  private String goldenRequestsRecord() {
    byte[] body =
        utf8(
            "{\"model\":\"llama\",\"messages\":["
                + "{\"role\":\"system\",\"content\":\"You are a terse assistant.\"},"
                + "{\"role\":\"user\",\"content\":\"Name three primes, ünïcödé 😀.\"}],"
                + "\"stream\":true}");
    RawRequestEvent event =
        event("req-golden", 1_749_633_401_877L, SESSION, "llama", body, new Usage(30L, 12L, null));
    TestOutputTopic<String, byte[]> json =
        driver.createOutputTopic(
            config.topics().chunkLookups().name(),
            Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    raw.pipeInput(SESSION, bytes(event));
    KeyValue<String, byte[]> out = json.readKeyValue();
    assertThat(out.key).matches(SESSION + "/[0-9a-f]{8}/1");
    assertThat(json.isEmpty()).isTrue();
    return new String(out.value, StandardCharsets.UTF_8);
  }

  @Test
  void shouldWriteAWholeRecordEverySixtyFourTurnsOfAChain() {
    // Given
    start(32, Map.of());

    // When: 66 turns of one session
    List<ChunkLookupRecord> out = pipeGrowingChat(66);

    // Then: whole at seqs 1 and 65, where a reader that starts inside the chain resynchronises
    List<Integer> whole = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).isWhole()) {
        whole.add(i + 1);
      }
    }
    assertThat(whole).containsExactly(1, 65);
  }

  @Test
  void shouldWriteWholeRecordsWhenThePreviousTurnsPrintsAreNotAtHand() {
    // Given: no room for prints
    start(32, Map.of("PREFIXLOG_LOOKUP_CACHE_BYTES", "0"));

    // When
    List<ChunkLookupRecord> out = pipeGrowingChat(3);

    // Then: each lists every hash, all of them hashed
    assertThat(out).allMatch(ChunkLookupRecord::isWhole);
    long chunks = out.stream().mapToLong(r -> r.tailHashes().size()).sum();
    assertThat(Meters.count(registry, "prefixlog_chunks_hashed_total")).isEqualTo(chunks);
    assertThat(Meters.count(registry, "prefixlog_chunk_hashes_reused_total")).isZero();
  }

  /** Turns of one session whose every body appends a question to the one before. */
  private List<ChunkLookupRecord> pipeGrowingChat(int turns) {
    StringBuilder messages = new StringBuilder("{\"role\":\"system\",\"content\":\"Be brief.\"}");
    for (int t = 1; t <= turns; t++) {
      messages
          .append(",{\"role\":\"user\",\"content\":\"Question number ")
          .append(t)
          .append("?\"}");
      byte[] body = utf8("{\"model\":\"m\",\"messages\":[" + messages + "]}");
      raw.pipeInput(SESSION, bytes(event("req-" + t, 1000L * t, SESSION, "m", body, null)));
    }
    List<ChunkLookupRecord> out = lookups.readValuesToList();
    assertThat(out).hasSize(turns);
    return out;
  }

  @Test
  void shouldChunkACompletionPromptAndABodyThatIsNotUtf8() {
    // Given
    start(16, Map.of());
    byte[] completion =
        utf8(
            "{\"model\":\"m\",\"prompt\":\"Once upon a time, in a land far away, there lived a"
                + " prefix cache.\",\"max_tokens\":5}");
    byte[] binary = new byte[40];
    binary[0] = (byte) 0xFF;

    // When
    raw.pipeInput(SESSION, bytes(event("req-c", 1000L, SESSION, "m", completion, null)));
    raw.pipeInput(SESSION, bytes(event("req-b", 2000L, SESSION, null, binary, null)));

    // Then
    ChunkLookupRecord prompt = lookups.readValue();
    assertThat(prompt.chunked()).isEqualTo("completion_prompt");
    assertThat(prompt.seqLen()).isEqualTo(65L);
    assertThat(prompt.prefixChunks()).isZero();
    assertThat(prompt.tailHashes())
        .containsExactly(
            "0xa8d417ef22ce6778", "0x0c2e63200571d865", "0x0a172208e37f91dc", "0xed44eba3e019cae5");
    assertThat(prompt.promptTokens()).isNull();
    assertThat(prompt.cachedTokens()).isNull();
    ChunkLookupRecord raw = lookups.readValue();
    assertThat(raw.chunked()).isEqualTo("raw_body");
    assertThat(raw.seqLen()).isEqualTo(40L);
    assertThat(raw.prefixChunks()).isZero();
    assertThat(raw.tailHashes()).hasSize(2);
    assertThat(raw.modelName()).isNull();
    assertThat(raw.timestamp()).isEqualTo(2.0);
  }

  @Test
  void shouldWriteNoLookupForARejectedInputAndKeepGoing() throws Exception {
    // Given
    start(256, Map.of("PREFIXLOG_MAX_BODY_BYTES", "4KiB"));
    RawRequestEvent valid = event("req-ok", 1000L, SESSION, "m", utf8("{\"prompt\":\"hi\"}"), null);
    Map<String, byte[]> bad = new LinkedHashMap<>();
    bad.put("invalid_json", utf8("{\"schema_version\":1,"));
    bad.put("unknown_schema_version", withField(valid, "schema_version", 7));
    bad.put("missing_field", withoutField(valid, "body_sha256"));
    bad.put("body_too_large", bytes(event("big", 1L, SESSION, "m", new byte[5000], null)));
    bad.put("body_mismatch", withField(valid, "body_len", 3));

    // When
    bad.values().forEach(value -> raw.pipeInput(SESSION, value));
    raw.pipeInput("another-session", bytes(valid));
    raw.pipeInput(SESSION, bytes(valid));

    // Then: only the valid one has a record; each rejection has its one dead letter
    assertThat(lookups.readKeyValuesToList())
        .extracting(kv -> kv.value.requestId())
        .containsExactly("req-ok");
    List<String> reasons = new ArrayList<>(bad.keySet());
    reasons.add("key_mismatch");
    for (String reason : reasons) {
      assertThat(Meters.count(registry, "prefixlog_dead_letters_total", "reason", reason))
          .as(reason)
          .isEqualTo(1);
    }
  }

  @Test
  void shouldLeaveDeadLetteringToTheSessionDeltaProcessorInTheFullTopology() {
    // Given: the app's topology, the chunk lookups under the session-delta processor
    start(256, Map.of());
    TestOutputTopic<byte[], DeadLetter> deadLetters =
        driver.createOutputTopic(
            config.topics().deadLetters().name(),
            Serdes.ByteArray().deserializer(),
            JsonSerde.of(DeadLetter.class).deserializer());
    byte[] body = LookupInputs.airlineRuns(1).get(0).get(0);

    // When
    raw.pipeInput(SESSION, utf8("not json"));
    raw.pipeInput(SESSION, bytes(event("req-1", 1000L, SESSION, "gpt-4o", body, null)));

    // Then: one dead letter, from the session-delta processor; one lookup
    assertThat(deadLetters.readValuesToList())
        .extracting(DeadLetter::reason)
        .containsExactly("invalid_json");
    assertThat(Meters.count(registry, "prefixlog_dead_letters_total", "reason", "invalid_json"))
        .isEqualTo(1);
    assertThat(lookups.readKeyValuesToList())
        .extracting(kv -> kv.value.requestId())
        .containsExactly("req-1");
  }

  @Test
  void shouldAddOneStatelessProcessorAndItsSinkUnderItsParent() {
    // Given
    config = config(Map.of());

    // When
    String described = driverTopologyDescription();

    // Then
    assertThat(described)
        .isEqualTo(
            "Topologies:\n"
                + "   Sub-topology: 0\n"
                + "    Source: raw-requests (topics: [prefixlog.requests.raw])\n"
                + "      --> chunk-lookup\n"
                + "    Processor: chunk-lookup (stores: [])\n"
                + "      --> chunk-lookups-sink\n"
                + "      <-- raw-requests\n"
                + "    Sink: chunk-lookups-sink (topic: prefixlog.chunk.lookups)\n"
                + "      <-- chunk-lookup\n\n");
  }

  @Test
  void shouldRejectAChunkSizeOutsideItsRange() {
    StreamAppConfig defaults = config(Map.of());
    StreamAppMetrics metrics = new StreamAppMetrics(new SimpleMeterRegistry());
    assertThatThrownBy(
            () -> ChunkLookupTopology.addTo(new Topology(), defaults, metrics, SOURCE, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSizeBytes must be from 16 to 1048576, got 8");
  }

  private String driverTopologyDescription() {
    Topology topology = new Topology();
    topology.addSource(
        SOURCE,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        config.topics().requestsRaw().name());
    ChunkLookupTopology.addTo(
        topology, config, new StreamAppMetrics(new SimpleMeterRegistry()), SOURCE, 256);
    return topology.describe().toString();
  }

  private static byte[] withField(RawRequestEvent event, String field, Object value)
      throws Exception {
    ObjectNode tree = (ObjectNode) Json.mapper().readTree(bytes(event));
    tree.set(field, Json.mapper().valueToTree(value));
    return Json.mapper().writeValueAsBytes(tree);
  }

  private static byte[] withoutField(RawRequestEvent event, String field) throws Exception {
    ObjectNode tree = (ObjectNode) Json.mapper().readTree(bytes(event));
    tree.remove(field);
    return Json.mapper().writeValueAsBytes(tree);
  }
}
