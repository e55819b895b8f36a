package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.StreamApps;
import io.prefixlog.tools.archive.ArchiveRows;
import io.prefixlog.tools.archive.EmbeddedArchive;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.topic.CompactedView;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prefixlog erase} end to end, all real and on loopback (issue 13's proof): sessions
 * captured through the proxy in front of the demo engine, a broker, the stream app, the embedded
 * archive (s3proxy, Connect with the Iceberg sink). Two of six sessions are erased, one named by
 * key and one by the id its client sent. Then: the others rebuild from the topic and from the
 * archive with no mismatch; after forced compaction no 32-byte window unique to an erased body is
 * left in any topic, in the stream app's state directory or in any object of the bucket (each scan
 * first shown to find them); and the erased session's next turn starts a new chain.
 */
class EraseIT {
  private static final String PREFIX = "erase-it.";
  private static final String APP = "erase-it-app";
  private static final String SECRET = "erase-it-session-secret-0123456789";
  private static final int CONVERSATIONS = 6;

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  @Timeout(value = 420, unit = TimeUnit.SECONDS)
  void shouldEraseTwoSessionsEverywhereAndKeepTheOthersWhole() throws Exception {
    // Given: six conversations' requests, what their sessions are called and their bodies
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    Path corpus = root.resolve("corpora/agentic/tau_bench_gpt4o_airline.jsonl");
    List<Conversation> conversations = CorpusFile.read(corpus).subList(0, CONVERSATIONS);
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    SessionKeyDeriver keys =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);
    Map<String, List<byte[]>> bodiesById = new LinkedHashMap<>();
    for (Conversation c : conversations) {
      for (ChatRequests.ChatRequest r : requests.of(c)) {
        bodiesById.computeIfAbsent(r.conversationId(), id -> new ArrayList<>()).add(r.body());
      }
    }
    List<String> ids = List.copyOf(bodiesById.keySet());
    String erasedById = ids.get(1);
    String erasedKey = keys.keyOfSessionId(ids.get(4));
    Set<String> erasedKeys = Set.of(keys.keyOfSessionId(erasedById), erasedKey);
    List<byte[]> kept = new ArrayList<>();
    List<byte[]> erased = new ArrayList<>();
    bodiesById.forEach(
        (id, bodies) ->
            (erasedKeys.contains(keys.keyOfSessionId(id)) ? erased : kept).addAll(bodies));
    long keptTurns = kept.size();
    List<String> markers = new ArrayList<>();
    for (byte[] body :
        List.of(last(bodiesById.get(erasedById)), last(bodiesById.get(ids.get(4))))) {
      List<String> unique = Residue.markers(body, kept, 12);
      assertThat(unique).as("32-byte windows only an erased session holds").hasSizeGreaterThan(3);
      markers.addAll(unique);
    }

    KafkaBroker broker =
        KafkaBroker.start(
            KafkaBroker.Options.defaults(dir.resolve("kafka"))
                .withHeapMiB(384)
                // The forced compaction below should not wait for the cleaner's default 15 s naps.
                .withBrokerProperty("log.cleaner.backoff.ms", "300"));
    EmbeddedArchive archive = null;
    Path stateDir = dir.resolve("state");
    try {
      Map<String, String> settings =
          StreamApps.settings(broker.bootstrapServers(), PREFIX, APP, stateDir);
      // One partition per topic: any later write rolls every topic's segment (see below).
      settings.put("PREFIXLOG_PARTITIONS", "1");
      StreamAppConfig config = StreamAppConfig.defaults(settings);
      try (StreamApp app = new StreamApp(config);
          DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults())) {
        StreamApps.start(app);
        archive =
            EmbeddedArchive.start(
                dir.resolve("archive"),
                EmbeddedArchive.Artifacts.of(root),
                broker.bootstrapServers(),
                PREFIX,
                config.maxRecordBytes(),
                0,
                Map.of("PREFIXLOG_ARCHIVE_COMMIT_INTERVAL", "3s"));
        try (CaptureProxy proxy = startProxy(broker, engine)) {
          String proxyUrl = "http://127.0.0.1:" + proxy.port();

          // When: the conversations go through the proxy, and reach the topic and the archive
          assertThat(
                  new ReplayCommand(console.terminal())
                      .run(
                          new String[] {
                            "--corpus",
                            corpus.toString(),
                            "--conversations",
                            Integer.toString(CONVERSATIONS),
                            "--interleave",
                            "3",
                            "--stream",
                            "0",
                            "--via-proxy",
                            proxyUrl
                          }))
              .as(console.err())
              .isEqualTo(Command.OK);
          // and the engine reports a block of an erased session and one of a kept session
          publishKvBatch(
              broker.bootstrapServers(), KV_SOURCE, erasedKey, keys.keyOfSessionId(ids.get(0)));
          long turns = keptTurns + erased.size();
          awaitDeltas(broker, turns);
          try (ArchiveReader reader = ArchiveReader.open(archive.settings())) {
            ArchiveRows.await(reader, ArchivedTopic.NAMESPACE + ".session_deltas", turns);
            ArchiveRows.await(reader, ArchivedTopic.NAMESPACE + ".chunk_lookups", turns);
            ArchiveRows.await(reader, ArchivedTopic.NAMESPACE + ".kv_events", 1);
          }
          // Every scan can see what it looks for before the erasure.
          assertThat(Residue.inTopics(broker.bootstrapServers(), markers)).isNotEmpty();
          assertThat(Residue.inBucket(archive.s3().bucketDir(), markers)).isNotEmpty();

          // When: two sessions are erased, one by key, one by the id its client sent
          int code =
              erase(
                  archive,
                  broker,
                  "--session",
                  erasedKey,
                  "--session-id",
                  erasedById,
                  "--archive",
                  "--s3-endpoint",
                  archive.settings().s3Endpoint(),
                  "--catalog-uri",
                  archive.settings().catalogUri(),
                  "--warehouse",
                  archive.settings().warehouse());

          // Then: it reports each session erased by the stream app, and nothing failed
          String report = console.out();
          System.out.println(report);
          assertThat(code).as(report + console.err()).isEqualTo(Command.OK);
          for (String key : erasedKeys) {
            assertThat(report)
                .containsPattern("session " + key + " erased \\(chain [0-9a-f]{8}\\)");
          }
          assertThat(report).doesNotContain("failed:");
          assertThat(report)
              .contains("KV index: source " + KV_SOURCE + " erased: 1 blocks' session id cleared");
          assertThat(report)
              .containsPattern("archive prefixlog\\.kv_events: .*1 rows' session ids");

          // When: the broker compacts (forced: every compacted topic made eager, then written to)
          forceCompaction(broker.bootstrapServers());
          sendNewSession(proxyUrl);
          publishKvBatch(
              broker.bootstrapServers(),
              "tcp://127.0.0.2:5557|dp0|kv-events",
              "unrelated-after-erasure",
              "unrelated-after-erasure");
          awaitNoLeftovers(archive, broker, erasedKeys);

          // Then: no window of an erased body is left on the broker, on disk or in the bucket
          assertThat(Residue.inTopics(broker.bootstrapServers(), markers)).isEmpty();
          assertThat(Residue.inFiles(stateDir, markers)).isEmpty();
          assertThat(Residue.inBucket(archive.s3().bucketDir(), markers)).isEmpty();
          assertThat(Residue.parquetFiles(archive.s3().bucketDir())).isPositive();

          // and every other session rebuilds from the topic and from the archive
          assertThat(rebuilt("--bootstrap", broker.bootstrapServers(), "--topic-prefix", PREFIX))
              .isEqualTo(keptTurns + 1);
          assertThat(
                  rebuilt(
                      "--archive",
                      "--s3-endpoint",
                      archive.settings().s3Endpoint(),
                      "--catalog-uri",
                      archive.settings().catalogUri(),
                      "--warehouse",
                      archive.settings().warehouse()))
              .isGreaterThanOrEqualTo(keptTurns);

          // When: the erased session's client comes back
          Map<String, DeltaRecord> before = latestDeltas(broker);
          send(proxyUrl, erasedById, last(bodiesById.get(erasedById)));

          // Then: its turn starts a new chain, at seq 1
          DeltaRecord fresh = awaitDeltaOf(broker, keys.keyOfSessionId(erasedById), before);
          assertThat(fresh.seq()).isEqualTo(1);
          assertThat(fresh.kind()).isEqualTo("full");
        }
      }
    } finally {
      if (archive != null) {
        archive.close();
      }
      broker.close();
    }
  }

  private int erase(EmbeddedArchive archive, KafkaBroker broker, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--bootstrap",
            broker.bootstrapServers(),
            "--topic-prefix",
            PREFIX,
            "--application-id",
            APP));
    Map<String, String> env = new HashMap<>();
    env.put("PREFIXLOG_SESSION_SECRET", SECRET);
    return new EraseCommand(console.terminal(env)).run(all.toArray(String[]::new));
  }

  /** Turns checked by {@code reconstruct} (which must find no problem), read from its summary. */
  private long rebuilt(String... args) {
    CapturedTerminal report = new CapturedTerminal();
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--allow-gaps");
    int code = new ReconstructCommand(report.terminal()).run(all.toArray(String[]::new));
    String text = report.out();
    assertThat(code).as(text + report.err()).isEqualTo(Command.OK);
    assertThat(text).containsPattern("checksum mismatches\\s+0\\b");
    java.util.regex.Matcher turns =
        java.util.regex.Pattern.compile("(?m)^\\s*turns\\s+(\\d+)").matcher(text);
    assertThat(turns.find()).as(text).isTrue();
    return Long.parseLong(turns.group(1));
  }

  private void awaitNoLeftovers(EmbeddedArchive archive, KafkaBroker broker, Set<String> erasedKeys)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String last = "";
    while (System.nanoTime() < deadline) {
      console.reset();
      List<String> args = new ArrayList<>(List.of("--check"));
      for (String key : erasedKeys) {
        args.add("--session");
        args.add(key);
      }
      if (erase(archive, broker, args.toArray(String[]::new)) == Command.OK) {
        return;
      }
      last = console.out();
      Thread.sleep(1000);
    }
    throw new AssertionError("records still name the erased sessions:\n" + last + console.err());
  }

  /**
   * Makes the broker compact every compacted topic of the test now: no dirty-ratio threshold, no
   * lag, tombstones dropped at once, segments rolled after 200 ms. The next write to each topic
   * rolls its segment (one partition each), and the cleaner then rewrites the old one.
   */
  private static void forceCompaction(String bootstrap) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      Map<ConfigResource, java.util.Collection<AlterConfigOp>> changes = new HashMap<>();
      for (String topic : admin.listTopics().names().get()) {
        if (!topic.startsWith(PREFIX) && !topic.startsWith(APP + "-")) {
          continue;
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        String policy =
            admin
                .describeConfigs(List.of(resource))
                .all()
                .get()
                .get(resource)
                .get("cleanup.policy")
                .value();
        if (!policy.contains("compact")) {
          continue;
        }
        changes.put(
            resource,
            List.of(
                set("min.cleanable.dirty.ratio", "0.0001"),
                set("min.compaction.lag.ms", "0"),
                set("max.compaction.lag.ms", "200"),
                set("delete.retention.ms", "0"),
                set("segment.ms", "200")));
      }
      admin.incrementalAlterConfigs(changes).all().get();
    }
    Thread.sleep(500);
  }

  private static AlterConfigOp set(String name, String value) {
    return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
  }

  /** A turn of a session nobody erased: a write to every compacted topic of the session path. */
  private static void sendNewSession(String proxyUrl) throws Exception {
    String body =
        "{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"user\",\"content\":\"a new"
            + " session, written after the erasure so that every segment rolls\"}]}";
    send(proxyUrl, "unrelated-session-after-erasure", body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(String proxyUrl, String sessionId, byte[] body) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(proxyUrl + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .header("X-Session-ID", sessionId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
  }

  private static final String KV_SOURCE = "tcp://127.0.0.1:5557|dp0|kv-events";

  /** One KV event batch, as the bridge publishes it: a block of each of the two sessions. */
  private static void publishKvBatch(String bootstrap, String source, String erased, String kept) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      String batch =
          "{\"schema_version\":1,\"source\":\""
              + source
              + "\",\"endpoint\":\"tcp://127.0.0.1:5557\",\"data_parallel_rank\":0,"
              + "\"topic\":\"kv-events\",\"seq\":1,\"ts\":1763700000001,"
              + "\"engine_ts\":1763700000.25,\"events\":["
              + "{\"type\":\"BlockStored\",\"block_hashes\":[\"00000000000000a1\"],"
              + "\"token_count\":16,\"block_size\":16,\"medium\":\"GPU\",\"session_id\":\""
              + erased
              + "\"},"
              + "{\"type\":\"BlockStored\",\"block_hashes\":[\"00000000000000a2\"],"
              + "\"token_count\":16,\"block_size\":16,\"medium\":\"GPU\",\"session_id\":\""
              + kept
              + "\"}]}";
      producer.send(new ProducerRecord<>(PREFIX + "kv.events", source, batch));
      producer.flush();
    }
  }

  private static CaptureProxy startProxy(KafkaBroker broker, DemoUpstream engine) throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_PROXY_UPSTREAM", engine.baseUrl());
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
    settings.put("PREFIXLOG_PROXY_HOST", "127.0.0.1");
    settings.put("PREFIXLOG_PROXY_PORT", "0");
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_SESSION_SECRET", SECRET);
    return CaptureProxy.start(ProxyConfig.fromSettings(Settings.of(settings)));
  }

  private static void awaitDeltas(KafkaBroker broker, long turns) {
    await()
        .alias(turns + " deltas")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> latestDeltas(broker).size(), n -> n >= turns);
  }

  private static Map<String, DeltaRecord> latestDeltas(KafkaBroker broker) throws Exception {
    Map<String, DeltaRecord> deltas = new HashMap<>();
    for (Map.Entry<String, byte[]> e :
        CompactedView.read(broker.bootstrapServers(), PREFIX + "session.deltas", "erase-it")
            .entrySet()) {
      deltas.put(e.getKey(), Json.mapper().readValue(e.getValue(), DeltaRecord.class));
    }
    return deltas;
  }

  private static DeltaRecord awaitDeltaOf(
      KafkaBroker broker, String session, Map<String, DeltaRecord> before) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (Map.Entry<String, DeltaRecord> e : latestDeltas(broker).entrySet()) {
        if (e.getKey().startsWith(session + "/") && !before.containsKey(e.getKey())) {
          return e.getValue();
        }
      }
      Thread.sleep(300);
    }
    throw new AssertionError("no new turn of " + session);
  }

  private static byte[] last(List<byte[]> bodies) {
    return bodies.get(bodies.size() - 1);
  }
}
