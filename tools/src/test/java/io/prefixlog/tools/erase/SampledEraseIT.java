package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.SamplingConfig;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.SessionSampler;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.StreamApps;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Erasure under capture sampling (issue 19), on a real broker with the stream app: the bridge's own
 * events (its event factory at {@code PREFIXLOG_SAMPLE_SESSIONS=0.5}) for two sessions the rule
 * leaves out and one it keeps; {@code prefixlog erase} of one sampled-out session tombstones every
 * metadata record and hash-only lookup of that session, and leaves the other sessions' records,
 * kept turns included, exactly as they were; {@code reconstruct} on the topics then reports the
 * other sampled-out session's requests as sampled out, not missing.
 */
@ExtendWith(KafkaExtension.class)
class SampledEraseIT {
  private static final String PREFIX = "sampled-erase.";
  private static final String APP = "sampled-erase-app";
  private static final String SECRET = "sampled-erase-it-session-secret-0123";
  private static final double SHARE = 0.5;
  private static final int TURNS = 3;

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldTombstoneTheSampledOutMetadataAndLookupsOfAnErasedSession(KafkaCluster kafka)
      throws Exception {
    // Given: two client session ids the rule samples out (A erased, B kept) and one it keeps (C)
    SessionKeyDeriver keys =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);
    SessionSampler rule = new SessionSampler(SHARE, SessionSampler.DEFAULT_SEED);
    List<String> sampledOut = new ArrayList<>();
    List<String> in = new ArrayList<>();
    for (int i = 0; sampledOut.size() < 2 || in.isEmpty(); i++) {
      String id = "client-" + i;
      (rule.keeps(keys.keyOfSessionId(id)) ? in : sampledOut).add(id);
    }
    String erasedId = sampledOut.get(0);
    String erasedKey = keys.keyOfSessionId(erasedId);
    List<String> sessions = List.of(erasedId, sampledOut.get(1), in.get(0));
    Topics topics = Topics.withPrefix(PREFIX);
    Map<String, String> settings =
        StreamApps.settings(kafka.bootstrapServers(), PREFIX, APP, dir.resolve("state"));
    settings.put("PREFIXLOG_PARTITIONS", "1");
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings))) {
      StreamApps.start(app);
      publish(kafka, topics.requestsRaw().name(), sessions);
      String metadataTopic = topics.requestsMetadata().name();
      String lookupsTopic = topics.chunkLookups().name();
      await()
          .alias("a metadata record and a lookup per request")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  view(kafka, metadataTopic).size() == sessions.size() * TURNS
                      && view(kafka, lookupsTopic).size() == sessions.size() * TURNS);
      Map<String, String> metadataBefore = view(kafka, metadataTopic);
      Map<String, String> lookupsBefore = view(kafka, lookupsTopic);
      Map<String, String> deltasBefore = view(kafka, topics.sessionDeltas().name());
      // The erased session's records are there, metadata-only, and C's body was kept.
      List<RequestMetadata> erasedBefore = metadataOf(metadataBefore, erasedKey);
      assertThat(erasedBefore).hasSize(TURNS).allMatch(m -> "sampled_out".equals(m.bodyOmitted()));
      assertThat(keysOf(lookupsBefore, erasedKey)).hasSize(TURNS);
      assertThat(deltasBefore)
          .hasSize(TURNS)
          .allSatisfy((k, v) -> assertThat(k).startsWith(keys.keyOfSessionId(in.get(0)) + "/"));

      // When
      int code =
          new EraseCommand(console.terminal(Map.of("PREFIXLOG_SESSION_SECRET", SECRET)))
              .run(
                  new String[] {
                    "--session-id",
                    erasedId,
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    PREFIX,
                    "--application-id",
                    APP
                  });

      // Then: the erased session's metadata and lookups are tombstoned, the rest untouched
      String report = console.out();
      assertThat(code).as(report + console.err()).isEqualTo(Command.OK);
      assertThat(report).doesNotContain("failed:");
      Map<String, String> metadataAfter = view(kafka, metadataTopic);
      Map<String, String> lookupsAfter = view(kafka, lookupsTopic);
      assertThat(keysOf(metadataAfter, erasedKey)).isEmpty();
      assertThat(keysOf(lookupsAfter, erasedKey)).isEmpty();
      assertThat(metadataAfter).isEqualTo(without(metadataBefore, erasedKey));
      assertThat(lookupsAfter).isEqualTo(without(lookupsBefore, erasedKey));
      assertThat(view(kafka, topics.sessionDeltas().name())).isEqualTo(deltasBefore);

      // When: reconstruct reads the topics
      CapturedTerminal summary = new CapturedTerminal();
      int rebuilt =
          new ReconstructCommand(summary.terminal())
              .run(
                  new String[] {"--bootstrap", kafka.bootstrapServers(), "--topic-prefix", PREFIX});

      // Then: C's turns rebuild, and B's requests are reported sampled out, not missing
      String text = summary.out();
      assertThat(rebuilt).as(text + summary.err()).isEqualTo(Command.OK);
      assertThat(text)
          .contains("  missing turns (gaps)             0\n")
          .contains(
              "sampled out: "
                  + TURNS
                  + " requests of "
                  + 2 * TURNS
                  + " (50.0 %) in 1 session: metadata only, not missing\n");
    }
  }

  /** The bridge's events of {@code TURNS} growing chat requests per session, keyed as it keys. */
  private static void publish(KafkaCluster kafka, String topic, List<String> sessions)
      throws Exception {
    OfflineCapture bridge =
        new OfflineCapture(
            ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), kafka.bootstrapServers())
                .with(CaptureConfig.SESSION_SECRET, SECRET)
                .with(SamplingConfig.SESSIONS, SHARE));
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    long ts = 1_750_000_000_000L;
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (String session : sessions) {
        StringBuilder messages = new StringBuilder();
        for (int turn = 1; turn <= TURNS; turn++) {
          if (turn > 1) {
            messages.append(',');
          }
          messages.append(
              String.format(
                  "{\"role\":\"user\",\"content\":\"turn %d of %s: %s\"}",
                  turn, session, "a question long enough to make a few chunks ".repeat(4)));
          byte[] body =
              ("{\"model\":\"m\",\"messages\":[" + messages + "]}")
                  .getBytes(StandardCharsets.UTF_8);
          byte[] event = bridge.capture(session + "-" + turn, ts++, session, body, 200, null);
          String key = RawEventFrame.readAsVersion1(event).sessionKey();
          producer.send(new ProducerRecord<>(topic, key, event)).get();
        }
      }
    }
  }

  /** The topic's compacted view, values as text. */
  private static Map<String, String> view(KafkaCluster kafka, String topic) throws Exception {
    return StreamApps.compactedText(kafka, topic, "sampled-erase-it");
  }

  private static List<String> keysOf(Map<String, String> view, String sessionKey) {
    return view.keySet().stream().filter(k -> k.startsWith(sessionKey + "/")).toList();
  }

  private static List<RequestMetadata> metadataOf(Map<String, String> view, String sessionKey)
      throws Exception {
    List<RequestMetadata> records = new ArrayList<>();
    for (String key : keysOf(view, sessionKey)) {
      records.add(Json.mapper().readValue(view.get(key), RequestMetadata.class));
    }
    return records;
  }

  /** The view without the session's keys. */
  private static Map<String, String> without(Map<String, String> view, String sessionKey) {
    Map<String, String> rest = new TreeMap<>(view);
    rest.keySet().removeIf(k -> k.startsWith(sessionKey + "/"));
    return rest;
  }
}
