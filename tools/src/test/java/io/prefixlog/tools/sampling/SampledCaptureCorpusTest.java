package io.prefixlog.tools.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.SamplingConfig;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.core.chunk.ChunkLookupResolver;
import io.prefixlog.core.chunk.LookupChains;
import io.prefixlog.core.rebuild.Counts;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.session.SessionSampler;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.analyze.AnalyzeCommand;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19's acceptance test: the agentic and chat corpora captured by the bridge's own event
 * factory at 100 % and at 10 % of sessions, each run through the stream app's real topology, then
 * rebuilt and analysed as {@code reconstruct} and {@code analyze} would.
 */
class SampledCaptureCorpusTest {
  private static final String SECRET = "sampling-corpus-test-secret-0123";

  /** Conversations per corpus file: enough sessions for a 10 % draw to hold several. */
  private static final int PER_FILE = 40;

  @TempDir Path dir;

  /** The report of the last {@link #analyzeCsv} run. */
  private String analyzeOut = "";

  /** One captured request: the client's session id and the event the bridge published. */
  private record Captured(String sessionId, String sessionKey, String requestId, byte[] event) {}

  /** What the stream app wrote, latest value per key as compaction keeps it. */
  private record Outputs(
      Map<String, byte[]> deltas, Map<String, JsonNode> metadata, Map<String, JsonNode> lookups) {}

  @Test
  void shouldKeepExactlyTheSelectedSessionsWholeAndMetadataAndLookupsForEveryRequest()
      throws IOException {
    // Given
    List<Captured> all = capture(new OfflineCapture(config(1.0)));
    List<Captured> sampled = capture(new OfflineCapture(config(0.1)));
    SessionSampler rule = new SessionSampler(0.1, SessionSampler.DEFAULT_SEED);
    Set<String> sessions = all.stream().map(Captured::sessionKey).collect(Collectors.toSet());
    Set<String> selected =
        sessions.stream().filter(rule::keeps).collect(Collectors.toCollection(TreeSet::new));

    // When
    Outputs full = run(all);
    Outputs tenth = run(sampled);

    // Then: bodies for exactly the selected sessions, each whole
    assertThat(selected).hasSizeBetween(3, sessions.size() / 4);
    Set<String> withBodies =
        tenth.deltas().keySet().stream()
            .map(key -> key.substring(0, key.indexOf('/')))
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(withBodies).isEqualTo(selected);
    long selectedRequests = all.stream().filter(c -> selected.contains(c.sessionKey())).count();
    assertThat(tenth.deltas()).hasSize((int) selectedRequests);
    Counts counts = rebuild(tenth.deltas()).counts();
    assertThat(counts.turns()).isEqualTo(selectedRequests);
    assertThat(counts.rebuiltOk()).isEqualTo(selectedRequests);
    assertThat(counts.failures(false)).isZero();
    assertThat(rebuild(full.deltas()).counts().rebuiltOk()).isEqualTo(all.size());

    // Then: a metadata record for every request, the same one whether or not its body was kept
    assertThat(tenth.metadata()).hasSize(all.size());
    assertThat(full.metadata()).hasSize(all.size());
    Map<String, JsonNode> fullById = byRequestId(full.metadata());
    for (JsonNode record : tenth.metadata().values()) {
      String session = record.path("session_key").asText();
      JsonNode twin = fullById.get(record.path("request_id").asText());
      assertThat(record.has("body_omitted")).isEqualTo(!selected.contains(session));
      assertThat(withoutSamplingFields(record)).isEqualTo(withoutSamplingFields(twin));
    }

    // Then: every request's lookup, hash for hash the one the stream app computes from the body
    // (both resolved to their version 1 form: a kept turn's record lists only the hashes after
    // those of its chain's previous turn, a hash-only one is whole)
    assertThat(tenth.lookups()).hasSize(all.size());
    Map<String, JsonNode> fullLookups = byRequestId(asVersion1(full.lookups()));
    for (JsonNode lookup : asVersion1(tenth.lookups()).values()) {
      JsonNode twin = fullLookups.get(lookup.path("request_id").asText());
      assertThat(lookup.has("body_omitted"))
          .isEqualTo(!selected.contains(lookup.path("session_key").asText()));
      assertThat(withoutSamplingFields(lookup)).isEqualTo(withoutSamplingFields(twin));
    }

    // Then: analyze draws the same curves from the hash-only lookups
    Map<String, String> tenthCurves = analyzeCsv(tenth.lookups(), "tenth");
    String tenthReport = analyzeOut;
    assertThat(tenthCurves).isEqualTo(analyzeCsv(full.lookups(), "full"));
    assertThat(analyzeOut).doesNotContain("hash-only");
    long hashOnly = all.size() - selectedRequests;
    assertThat(tenthReport)
        .contains(
            String.format(
                java.util.Locale.ROOT,
                "%,d of %,d lookup records (%.1f %%) are hash-only",
                hashOnly,
                all.size(),
                100.0 * hashOnly / all.size()));
  }

  @Test
  void shouldDecideTheSameOnARestartAndOnASecondBridge() throws IOException {
    // Given
    ProxyConfig config = config(0.1);

    // When
    List<Captured> first = capture(new OfflineCapture(config));
    List<Captured> restarted = capture(new OfflineCapture(config));
    OfflineCapture other = new OfflineCapture(config);
    List<Captured> secondBridge = capture(other);

    // Then: byte-identical events, so identical decisions, chunk hashes included
    assertThat(restarted).hasSameSizeAs(first);
    for (int i = 0; i < first.size(); i++) {
      assertThat(restarted.get(i).event()).isEqualTo(first.get(i).event());
      assertThat(secondBridge.get(i).event()).isEqualTo(first.get(i).event());
    }
    long sampledOut = first.stream().filter(c -> eventTree(c.event()).has("body_omitted")).count();
    assertThat(sampledOut).isPositive().isLessThan(first.size());
    assertThat(other.decisions("sampled_out")).isEqualTo(sampledOut);
    assertThat(other.decisions("session_selected")).isEqualTo(first.size() - sampledOut);
  }

  private static ProxyConfig config(double share) {
    return ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "127.0.0.1:9092")
        .with(CaptureConfig.SESSION_SECRET, SECRET)
        .with(SamplingConfig.SESSIONS, share);
  }

  /** The agentic and chat corpora, conversations in file order, turns one second apart. */
  private static List<Captured> capture(OfflineCapture bridge) throws IOException {
    Path corpora = ProjectHome.findFrom(Path.of("")).orElseThrow().resolve("corpora");
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<Captured> captured = new ArrayList<>();
    long ts = 1_750_000_000_000L;
    for (String file :
        List.of(
            "agentic/tau_bench_gpt4o_airline.jsonl",
            "agentic/swe_agent_trajectories.jsonl",
            "chat/hh_rlhf_helpful_base_test.jsonl",
            "chat/oasst_en100_threads.jsonl")) {
      for (Conversation conversation :
          CorpusFile.read(corpora.resolve(file)).stream().limit(PER_FILE).toList()) {
        String sessionId = file + "#" + conversation.id();
        for (ChatRequests.ChatRequest request : requests.of(conversation)) {
          String requestId = sessionId + "#" + request.turn();
          long prompt = request.body().length / 4;
          byte[] event =
              bridge.capture(
                  requestId,
                  ts,
                  sessionId,
                  request.body(),
                  200,
                  new Usage(prompt, 32L, request.turn() > 1 ? prompt / 2 : null));
          JsonNode tree = eventTree(event);
          captured.add(
              new Captured(sessionId, tree.path("session_key").asText(), requestId, event));
          ts += 1000;
        }
      }
    }
    return captured;
  }

  private Outputs run(List<Captured> events) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state-" + System.nanoTime()).toString());
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    Topics topics = config.topics();
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(new SimpleMeterRegistry())),
            StreamApp.streamsProperties(config))) {
      TestInputTopic<String, byte[]> raw =
          driver.createInputTopic(
              topics.requestsRaw().name(),
              Serdes.String().serializer(),
              Serdes.ByteArray().serializer());
      for (Captured c : events) {
        raw.pipeInput(c.sessionKey(), c.event());
      }
      return new Outputs(
          latest(driver, topics.sessionDeltas().name()),
          trees(latest(driver, topics.requestsMetadata().name())),
          trees(latest(driver, topics.chunkLookups().name())));
    }
  }

  private static Map<String, byte[]> latest(TopologyTestDriver driver, String topic) {
    Map<String, byte[]> latest = new LinkedHashMap<>();
    for (KeyValue<String, byte[]> record :
        driver
            .createOutputTopic(
                topic, Serdes.String().deserializer(), Serdes.ByteArray().deserializer())
            .readKeyValuesToList()) {
      latest.put(record.key, record.value);
    }
    return latest;
  }

  private static Map<String, JsonNode> trees(Map<String, byte[]> values) {
    Map<String, JsonNode> trees = new LinkedHashMap<>();
    values.forEach((key, value) -> trees.put(key, tree(value)));
    return trees;
  }

  /** A raw event of either form (the bridge frames those with a body) as version 1's JSON tree. */
  private static JsonNode eventTree(byte[] event) {
    return Json.mapper().valueToTree(RawEventFrame.readAsVersion1(event));
  }

  private static JsonNode tree(byte[] json) {
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Map<String, JsonNode> byRequestId(Map<String, JsonNode> records) {
    Map<String, JsonNode> byId = new HashMap<>();
    records.values().forEach(r -> byId.put(r.path("request_id").asText(), r));
    return byId;
  }

  /** A record without what sampling changes by design: the turn it names, why a body is absent. */
  private static JsonNode withoutSamplingFields(JsonNode record) {
    com.fasterxml.jackson.databind.node.ObjectNode copy = record.deepCopy();
    copy.remove(List.of("turn", "body_omitted"));
    return copy;
  }

  /** The lookups, in the order written, each resolved and in its version 1 form. */
  private static Map<String, JsonNode> asVersion1(Map<String, JsonNode> lookups) {
    ChunkLookupResolver resolver = new ChunkLookupResolver(1L << 30);
    Map<String, JsonNode> v1 = new LinkedHashMap<>();
    lookups.forEach(
        (key, tree) -> {
          ChunkLookupRecord record = Json.mapper().convertValue(tree, ChunkLookupRecord.class);
          LookupChains.Outcome<List<String>> outcome = resolver.resolve(key, record);
          assertThat(outcome).as(key).isInstanceOf(LookupChains.Resolved.class);
          List<String> whole = ((LookupChains.Resolved<List<String>>) outcome).hashes();
          v1.put(key, Json.mapper().valueToTree(record.asVersion1(whole)));
        });
    return v1;
  }

  private static RebuildReport rebuild(Map<String, byte[]> deltas) {
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    deltas.forEach((key, value) -> rebuilder.addTopicRecord(key, value, key));
    return rebuilder.run(new RebuildListener() {});
  }

  /**
   * {@code prefixlog analyze --file <lookups> --csv <dir>} on a kcat {@code -J} dump of the lookups
   * (keys kept, as version 2 records need): the curve and rolling CSVs.
   */
  private Map<String, String> analyzeCsv(Map<String, JsonNode> lookups, String name)
      throws IOException {
    Path file = dir.resolve(name + ".jsonl");
    StringBuilder lines = new StringBuilder();
    for (Map.Entry<String, JsonNode> lookup : lookups.entrySet()) {
      com.fasterxml.jackson.databind.node.ObjectNode envelope = Json.mapper().createObjectNode();
      envelope.put("key", lookup.getKey());
      envelope.put("payload", Json.mapper().writeValueAsString(lookup.getValue()));
      lines.append(Json.mapper().writeValueAsString(envelope)).append('\n');
    }
    Files.writeString(file, lines.toString(), StandardCharsets.UTF_8);
    Path csv = Files.createDirectories(dir.resolve(name + "-csv"));
    CapturedTerminal console = new CapturedTerminal();
    int code =
        new AnalyzeCommand(console.terminal())
            .run(new String[] {"--file", file.toString(), "--csv", csv.toString()});
    assertThat(code).as(console.err()).isZero();
    analyzeOut = console.out();
    Map<String, String> files = new LinkedHashMap<>();
    try (var list = Files.list(csv)) {
      for (Path p : list.sorted().toList()) {
        files.put(p.getFileName().toString(), Files.readString(p));
      }
    }
    assertThat(files).isNotEmpty();
    return files;
  }
}
