package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.PublishConfig;
import io.prefixlog.cli.Terminal;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.demo.Served;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.replay.ReplayEvents;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3's end-to-end contract on a real broker: {@code replay --via-proxy} sends every agentic
 * conversation and at least 1,000 chat turns as real HTTP requests (half of them SSE streams)
 * through the CaptureProxy to the demo engine; the proxy captures them into the raw topic, the
 * stream app encodes them, and every body rebuilds byte for byte from the deltas alone, each delta
 * carrying the prompt and cached-token figures the engine reported to the client, under the session
 * key a direct replay would give the conversation.
 */
@ExtendWith(KafkaExtension.class)
class ProxyPipelineIT {
  private static final String SECRET = "proxy-pipeline-it-session-secret";
  private static final int CHAT_TURNS = 1000;

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldRebuildEveryProxiedBodyWithTheEnginesCachedTokens(KafkaCluster kafka)
      throws Exception {
    // Given
    String prefix = "proxied.";
    Corpus corpus = corpus();
    Map<String, Served> served = new ConcurrentHashMap<>();
    try (StreamApp app =
            new StreamApp(
                StreamAppConfig.defaults(
                    Pipeline.settings(
                        kafka, prefix, "proxy-pipeline-app", dir.resolve("state"), 4)));
        DemoUpstream upstream =
            DemoUpstream.start(DemoUpstream.Options.defaults(), s -> served.put(s.requestId(), s));
        CaptureProxy proxy =
            CaptureProxy.start(
                ProxyConfig.defaults(URI.create(upstream.baseUrl()), kafka.bootstrapServers())
                    .withListen("127.0.0.1", 0)
                    .with(PublishConfig.TOPIC_PREFIX, prefix)
                    .with(CaptureConfig.SESSION_SECRET, SECRET)
                    .with(MetricsConfig.PORT, -1))) {
      app.start();
      awaitRunning(app);

      // When
      replay(corpus, "http://127.0.0.1:" + proxy.port());

      // Then
      assertThat(served).hasSize((int) corpus.turns);
      assertThat(served.values().stream().filter(Served::stream).count())
          .isEqualTo(corpus.turns / 2);
      assertLosslessWithEngineUsage(kafka, prefix, corpus, served);
      assertThat(Meters.count(app.metrics().registry(), "prefixlog_dead_letters_total")).isZero();
    }
  }

  private static void assertLosslessWithEngineUsage(
      KafkaCluster kafka, String prefix, Corpus corpus, Map<String, Served> served) {
    long events = corpus.turns;
    Pipeline.Captured captured =
        Pipeline.Captured.read(kafka, prefix, events, Duration.ofMinutes(3));
    List<ConsumerRecord<String, byte[]>> raw = captured.raw();
    Map<String, RawRequestEvent> rawById = captured.rawById();
    List<DeltaRecord> records = captured.records();

    // One capture and one delta per request the engine answered: each under its capture's id,
    // with the client's request id (client_request_id, and in the delta's captured headers).
    assertThat(raw).hasSize((int) events);
    assertThat(records).hasSize((int) events);
    assertThat(rawById.values().stream().map(RawRequestEvent::clientRequestId).toList())
        .containsExactlyInAnyOrderElementsOf(served.keySet());
    assertThat(records.stream().map(DeltaRecord::requestId).collect(Collectors.toSet()))
        .isEqualTo(rawById.keySet());
    assertThat(records.stream().map(d -> d.headers().get("x-request-id")).toList())
        .containsExactlyInAnyOrderElementsOf(served.keySet());
    // The proxy derives the keys a direct replay gives the conversations (X-Session-ID).
    assertThat(records.stream().map(DeltaRecord::sessionKey).collect(Collectors.toSet()))
        .isEqualTo(corpus.sessionKeys);

    // The captured response and every delta carry what the engine told the client.
    for (RawRequestEvent event : rawById.values()) {
      Served answer = served.get(event.clientRequestId());
      assertThat(event.response().status()).isEqualTo(200);
      assertThat(event.response().id()).isEqualTo(answer.responseId());
      assertThat(event.response().usage().promptTokens()).isEqualTo(answer.promptTokens());
      assertThat(event.response().usage().cachedTokens()).isEqualTo(answer.cachedTokens());
    }
    for (DeltaRecord delta : records) {
      Served answer = served.get(delta.headers().get("x-request-id"));
      assertThat(delta.promptTokens()).as(delta.requestId()).isEqualTo(answer.promptTokens());
      assertThat(delta.cachedTokens()).as(delta.requestId()).isEqualTo(answer.cachedTokens());
    }
    assertThat(records.stream().mapToLong(DeltaRecord::cachedTokens).sum())
        .as("follow-up turns hit the engine's prefix cache")
        .isGreaterThan(records.stream().mapToLong(DeltaRecord::promptTokens).sum() / 2);

    // Every body rebuilds from the deltas alone and equals the captured body.
    Pipeline.assertEveryBodyRebuilds(captured, events);
  }

  /** What is replayed: every agentic conversation, and chat conversations up to 1,000 turns. */
  private record Corpus(
      Path agentic, Path chat, int conversations, long turns, Set<String> sessionKeys) {}

  private static Corpus corpus() throws Exception {
    Path agentic = Pipeline.agentic();
    Path chat = Pipeline.chat();
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<Conversation> chats = CorpusFile.read(chat);
    int conversations = 0;
    long chatTurns = 0;
    while (chatTurns < CHAT_TURNS) {
      chatTurns += requests.of(chats.get(conversations++)).size();
    }
    // --conversations applies to every file: it must take all of the agentic ones.
    List<Conversation> replayed = new ArrayList<>(chats.subList(0, conversations));
    try (var files = Files.list(agentic)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        List<Conversation> all = CorpusFile.read(file);
        assertThat(all.size()).isLessThanOrEqualTo(conversations);
        replayed.addAll(all);
      }
    }
    ReplayEvents keys = new ReplayEvents(SECRET, "unused");
    long turns = 0;
    Set<String> sessionKeys = new java.util.HashSet<>();
    for (Conversation c : replayed) {
      int n = requests.of(c).size();
      turns += n;
      if (n > 0) {
        sessionKeys.add(keys.sessionKey(c.id()).key());
      }
    }
    assertThat(chatTurns).isGreaterThanOrEqualTo(CHAT_TURNS);
    return new Corpus(agentic, chat, conversations, turns, sessionKeys);
  }

  private static void replay(Corpus corpus, String proxyUrl) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Terminal terminal = Terminal.captured(out, err);
    int code =
        new ReplayCommand(terminal)
            .run(
                new String[] {
                  "--corpus",
                  corpus.agentic().toString(),
                  "--corpus",
                  corpus.chat().toString(),
                  "--conversations",
                  Integer.toString(corpus.conversations()),
                  "--interleave",
                  "16",
                  "--concurrency",
                  "8",
                  "--stream",
                  "0.5",
                  "--via-proxy",
                  proxyUrl,
                  "--secret",
                  SECRET
                });
    assertThat(code)
        .as("%s%n%s", out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8))
        .isEqualTo(Command.OK);
  }

  private void awaitRunning(StreamApp app) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (app.state() != KafkaStreams.State.RUNNING) {
      assertThat(System.nanoTime())
          .as("stream app RUNNING, is %s", app.state())
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }
}
