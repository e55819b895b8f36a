package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.PublishConfig;
import io.prefixlog.cli.Terminal;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.demo.Served;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.analyze.AnalyzeCommand;
import io.prefixlog.tools.reconstruct.ExportCommand;
import io.prefixlog.tools.reconstruct.ExportReaders;
import io.prefixlog.tools.replay.ReplayCommand;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17's done-when for the timed replay, on a real broker: corpus traffic goes through a
 * capture proxy to a demo engine and the stream app writes its deltas; {@code replay
 * --from-capture} then sends the rebuilt requests, four times as fast, through a second capture
 * proxy to a fresh demo engine (an empty prefix cache). Every request is replayed under its
 * session, on the scaled schedule, and the fresh engine's cached-token rate is within 2 points of
 * the captured one. Replayed again straight to an engine with a tiny prefix cache, the rate falls
 * by more than 10 points: the comparison tells two engine configurations apart.
 */
@ExtendWith(KafkaExtension.class)
class CaptureReplayIT {
  private static final String SECRET = "capture-replay-it-session-secret";
  private static final String CAPTURED = "captured.";
  private static final String REPLAYED = "replayed.";
  private static final int TURNS = 240;
  private static final int RATE = 24;
  private static final double SPEED = 4;

  @TempDir Path dir;

  /** What an engine answered, and when the request reached it. */
  private record Answer(Served served, long atNanos) {}

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldReproduceTheCapturedCachedTokenRateOnAFreshEngine(KafkaCluster kafka)
      throws Exception {
    // Given: a capture of TURNS requests sent at RATE per second.
    List<Answer> original = new CopyOnWriteArrayList<>();
    List<Answer> replayed = new CopyOnWriteArrayList<>();
    List<DeltaRecord> deltas;
    String summary;
    long replayStart;
    String engineUrl;
    try (StreamApp app =
            new StreamApp(
                StreamAppConfig.defaults(
                    Pipeline.settings(
                        kafka, CAPTURED, "capture-replay-app", dir.resolve("s"), 2)));
        DemoUpstream engine = DemoUpstream.start(engineOptions(), answers(original));
        CaptureProxy proxy = proxy(kafka, engine, CAPTURED)) {
      engineUrl = engine.baseUrl();
      app.start();
      awaitRunning(app);
      run(
          "--corpus",
          Pipeline.agentic().toString(),
          "--corpus",
          Pipeline.chat().toString(),
          "--conversations",
          "10",
          "--turns",
          Integer.toString(TURNS),
          "--interleave",
          "8",
          "--rate",
          Integer.toString(RATE),
          "--stream",
          "0.5",
          "--secret",
          SECRET,
          "--via-proxy",
          "http://127.0.0.1:" + proxy.port());
      deltas =
          Topics.readAtLeast(
                  kafka.bootstrapServers(),
                  CAPTURED + "session.deltas",
                  TURNS,
                  Duration.ofMinutes(2))
              .stream()
              .map(r -> JsonSerde.of(DeltaRecord.class).fromBytes(r.value()))
              .toList();
    }
    assertThat(original).hasSize(TURNS);
    assertThat(deltas).hasSize(TURNS);
    assertExportsParse(kafka);
    assertAttributedToTheEngine(kafka, engineUrl, original);
    Pipeline.createTopics(
        kafka, Pipeline.settings(kafka, REPLAYED, "unused", dir.resolve("unused"), 2));

    // When: replayed four times as fast through a capture proxy to a fresh engine.
    try (DemoUpstream fresh = DemoUpstream.start(engineOptions(), answers(replayed));
        CaptureProxy proxy = proxy(kafka, fresh, REPLAYED)) {
      replayStart = System.nanoTime();
      summary =
          run(
              "--from-capture",
              "--bootstrap",
              kafka.bootstrapServers(),
              "--topic-prefix",
              CAPTURED,
              "--via-proxy",
              "http://127.0.0.1:" + proxy.port(),
              "--speed",
              Double.toString(SPEED));
    }

    // Then: every request, under its session.
    assertThat(replayed).hasSize(TURNS);
    List<RawRequestEvent> recaptured =
        Topics.readAtLeast(
                kafka.bootstrapServers(), REPLAYED + "requests.raw", TURNS, Duration.ofMinutes(1))
            .stream()
            .map(r -> RawEventFrame.readAsVersion1(r.value()))
            .toList();
    assertThat(recaptured).hasSize(TURNS);
    // The capture kept the session key, not the header's value, and the replay sent the key: each
    // original session is one session again, under a key of its own
    assertThat(sessionsOf(recaptured, RawRequestEvent::sessionKey, RawRequestEvent::bodySha256))
        .isEqualTo(sessionsOf(deltas, DeltaRecord::sessionKey, DeltaRecord::bodySha256));
    assertThat(sessions(recaptured.stream().map(RawRequestEvent::sessionKey)))
        .doesNotContainAnyElementsOf(sessions(deltas.stream().map(DeltaRecord::sessionKey)));
    assertThat(recaptured.stream().map(RawRequestEvent::bodySha256).sorted().toList())
        .isEqualTo(deltas.stream().map(DeltaRecord::bodySha256).sorted().toList());
    assertThat(recaptured)
        .allSatisfy(e -> assertThat(e.userAgent()).startsWith("prefixlog-capture-replay/"));

    // The schedule: never early, and the gaps divided by the speed.
    long spanMs =
        deltas.stream().mapToLong(DeltaRecord::ts).max().orElseThrow()
            - deltas.stream().mapToLong(DeltaRecord::ts).min().orElseThrow();
    long firstNanos = replayed.stream().mapToLong(Answer::atNanos).min().orElseThrow();
    long lastNanos = replayed.stream().mapToLong(Answer::atNanos).max().orElseThrow();
    assertThat(spanMs).isGreaterThan(TURNS * 1000L / RATE * 8 / 10);
    assertThat((lastNanos - replayStart) / 1e6).isGreaterThanOrEqualTo(spanMs / SPEED);
    assertThat((lastNanos - firstNanos) / 1e6).isLessThan(spanMs * 0.6);

    // The cached-token rates: the engines' own counts, and the summary's.
    double originalRate = rate(original);
    double replayRate = rate(replayed);
    System.out.printf(
        Locale.ROOT,
        "capture replay: %d requests, capture span %d ms, replay %.0f ms at speed %.0f;"
            + " cached-token rate original %.2f %%, replay %.2f %%, difference %+.2f points%n%s",
        TURNS,
        spanMs,
        (lastNanos - firstNanos) / 1e6,
        SPEED,
        originalRate,
        replayRate,
        replayRate - originalRate,
        summary);
    assertThat(originalRate).as("the capture hits the cache").isGreaterThan(30);
    assertThat(replayRate).isCloseTo(originalRate, org.assertj.core.data.Offset.offset(2.0));
    assertThat(summary)
        .containsPattern(
            "  all +original +"
                + TURNS
                + " .*"
                + tokens(original).replace("(", "\\(").replace(")", "\\)"))
        .containsPattern(
            "\\n +replay +"
                + TURNS
                + " .*"
                + tokens(replayed).replace("(", "\\(").replace(")", "\\)")
                + String.format(Locale.ROOT, "  %+.1f points\\n", replayRate - originalRate)
                    .replace("+", "\\+"));

    // And the comparison tells engine configurations apart: the same capture against an engine
    // with a 64-chunk (16 KB) prefix cache, where sessions evict each other's prefixes.
    List<Answer> small = new CopyOnWriteArrayList<>();
    try (DemoUpstream smallCache =
        DemoUpstream.start(engineOptions().withCacheChunks(64), answers(small))) {
      summary =
          run(
              "--from-capture",
              "--bootstrap",
              kafka.bootstrapServers(),
              "--topic-prefix",
              CAPTURED,
              "--via-proxy",
              smallCache.baseUrl(),
              "--speed",
              Double.toString(SPEED));
    }
    double smallRate = rate(small);
    System.out.printf(
        Locale.ROOT,
        "capture replay to a 64-chunk cache: cached-token rate %.2f %%, %+.2f points%n%s",
        smallRate,
        smallRate - originalRate,
        summary);
    assertThat(small).hasSize(TURNS);
    assertThat(smallRate).isLessThan(originalRate - 10);
    assertThat(summary)
        .containsPattern(
            "\\n +replay +"
                + TURNS
                + " .*"
                + tokens(small).replace("(", "\\(").replace(")", "\\)")
                + String.format(Locale.ROOT, "  %+.1f points\\n", smallRate - originalRate));
  }

  /**
   * Issue 17's done-when for the export, from the deltas topic the real pipeline wrote: the
   * Mooncake trace and the vLLM dataset parse with readers written from the formats' published
   * field lists, and hold exactly the captured requests as the proxy's raw events (not the deltas
   * the export rebuilds from) describe them: each body rendered, its usage, its arrival time. The
   * Mooncake block ids are checked against a numbering of their own: equal ids exactly for equal
   * prompt prefixes, a full block by the SHA-256 of the prompt up to its end, the partial last
   * block by the whole prompt.
   */
  private void assertExportsParse(KafkaCluster kafka) throws Exception {
    List<RawRequestEvent> raw =
        Topics.readAtLeast(
                kafka.bootstrapServers(), CAPTURED + "requests.raw", TURNS, Duration.ofMinutes(1))
            .stream()
            .map(r -> RawEventFrame.readAsVersion1(r.value()))
            .toList();
    Path mooncake = dir.resolve("trace.jsonl");
    Path vllm = dir.resolve("dataset.jsonl");
    int block = 1024;
    long defaultOutput = 77;
    for (String[] format :
        new String[][] {{"mooncake", mooncake.toString()}, {"vllm-custom", vllm.toString()}}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          new ExportCommand(Terminal.captured(out, err))
              .run(
                  new String[] {
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    CAPTURED,
                    "--format",
                    format[0],
                    "--out",
                    format[1],
                    "--block-bytes",
                    Integer.toString(block),
                    "--default-output-tokens",
                    Long.toString(defaultOutput)
                  });
      assertThat(code).as("%s%n%s", out, err).isEqualTo(Command.OK);
      assertThat(out.toString(StandardCharsets.UTF_8))
          .contains(TURNS + " rebuilt and checked, 0 erased (not exported), 0 failed their check");
    }
    List<JsonNode> trace = ExportReaders.mooncake(mooncake);
    List<JsonNode> dataset = ExportReaders.vllmCustom(vllm);
    assertThat(trace).hasSize(TURNS);
    assertThat(dataset).hasSize(TURNS);

    long first = raw.stream().mapToLong(RawRequestEvent::ts).min().orElseThrow();
    List<String> expected = new ArrayList<>();
    for (RawRequestEvent event : raw) {
      assertThat(event.bodyEncoding()).isEqualTo("utf-8");
      byte[] prompt = PromptRenderer.render(event.body().getBytes(StandardCharsets.UTF_8)).bytes();
      Usage usage = event.response() == null ? null : event.response().usage();
      long input =
          usage != null && usage.promptTokens() != null
              ? usage.promptTokens()
              : (prompt.length + 3) / 4;
      long output =
          usage != null && usage.completionTokens() != null
              ? usage.completionTokens()
              : defaultOutput;
      expected.add((event.ts() - first) + " " + input + " " + output + " " + sha256(prompt));
    }
    List<String> exported = new ArrayList<>();
    Map<String, Long> ids = new HashMap<>();
    for (int i = 0; i < TURNS; i++) {
      JsonNode line = trace.get(i);
      String prompt = dataset.get(i).get("prompt").asText();
      assertThat(dataset.get(i).get("output_tokens").asLong())
          .isEqualTo(line.get("output_length").asLong());
      exported.add(
          line.get("timestamp").asLong()
              + " "
              + line.get("input_length").asLong()
              + " "
              + line.get("output_length").asLong()
              + " "
              + sha256(prompt.getBytes(StandardCharsets.UTF_8)));
      byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
      MessageDigest prefix = MessageDigest.getInstance("SHA-256");
      List<Long> want = new ArrayList<>();
      for (int end = block; end <= bytes.length; end += block) {
        prefix.update(bytes, end - block, block);
        String key =
            "prefix " + HexFormat.of().formatHex(((MessageDigest) prefix.clone()).digest());
        want.add(ids.computeIfAbsent(key, k -> (long) ids.size()));
      }
      if (bytes.length % block != 0) {
        want.add(ids.computeIfAbsent("whole " + prompt, k -> (long) ids.size()));
      }
      assertThat(ExportReaders.hashIds(line)).as("line %d", i).isEqualTo(want);
    }
    assertThat(exported).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ids.size())
        .as("prompts share blocks")
        .isLessThan(trace.stream().mapToInt(l -> l.get("hash_ids").size()).sum());
  }

  /**
   * Every captured request names the upstream the proxy forwarded it to, its lookup record too, and
   * the routing what-if from the lookups topic attributes them all to it, with the engine's own
   * counts of the answers whose usage reached the client.
   */
  private static void assertAttributedToTheEngine(
      KafkaCluster kafka, String engineUrl, List<Answer> answers) throws Exception {
    URI engine = URI.create(engineUrl);
    String upstream = "http://" + engine.getHost() + ":" + engine.getPort();
    List<RawRequestEvent> raw =
        Topics.readAtLeast(
                kafka.bootstrapServers(), CAPTURED + "requests.raw", TURNS, Duration.ofMinutes(1))
            .stream()
            .map(r -> RawEventFrame.readAsVersion1(r.value()))
            .toList();
    assertThat(raw).extracting(RawRequestEvent::upstream).containsOnly(upstream);
    List<ChunkLookupRecord> lookups =
        Topics.readAtLeast(
                kafka.bootstrapServers(), CAPTURED + "chunk.lookups", TURNS, Duration.ofMinutes(1))
            .stream()
            .map(r -> JsonSerde.of(ChunkLookupRecord.class).fromBytes(r.value()))
            .toList();
    assertThat(lookups).hasSize(TURNS);
    assertThat(lookups).extracting(ChunkLookupRecord::upstream).containsOnly(upstream);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new AnalyzeCommand(Terminal.captured(out, err))
            .run(
                new String[] {
                  "--bootstrap",
                  kafka.bootstrapServers(),
                  "--topic-prefix",
                  CAPTURED,
                  "--replicas",
                  "2",
                  "--replica-capacity",
                  "100",
                  "--policies",
                  "session",
                  "--no-opt"
                });
    String report = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("%s%n%s", report, err).isEqualTo(Command.OK);
    List<Served> reported = answers.stream().map(Answer::served).filter(Served::usageSent).toList();
    long prompt = reported.stream().mapToLong(Served::promptTokens).sum();
    long cached = reported.stream().mapToLong(Served::cachedTokens).sum();
    assertThat(reported).isNotEmpty();
    assertThat(report)
        .contains(
            String.format(
                Locale.ROOT,
                "\n    %s %,9d %7s %,10d %,14d %,14d %8s",
                upstream,
                TURNS,
                "100.0%",
                reported.size(),
                prompt,
                cached,
                String.format(Locale.ROOT, "%.1f%%", 100.0 * cached / prompt)))
        .contains("    one upstream: a router behind it would hide which engine served a request");
  }

  /** The prompt's SHA-256, so that a failure names requests without printing their prompts. */
  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private static DemoUpstream.Options engineOptions() {
    return DemoUpstream.Options.defaults().withDelay(Duration.ofMillis(15));
  }

  private static java.util.function.Consumer<Served> answers(List<Answer> into) {
    return served -> into.add(new Answer(served, System.nanoTime()));
  }

  private static CaptureProxy proxy(KafkaCluster kafka, DemoUpstream engine, String prefix)
      throws Exception {
    return CaptureProxy.start(
        ProxyConfig.defaults(URI.create(engine.baseUrl()), kafka.bootstrapServers())
            .withListen("127.0.0.1", 0)
            .with(PublishConfig.TOPIC_PREFIX, prefix)
            .with(CaptureConfig.SESSION_SECRET, SECRET)
            .with(MetricsConfig.PORT, -1));
  }

  /** The bodies of each session, as a set of sets: which requests were grouped together. */
  private static <T> Set<Set<String>> sessionsOf(
      List<T> records, Function<T, String> session, Function<T, String> body) {
    return Set.copyOf(
        records.stream()
            .collect(Collectors.groupingBy(session, Collectors.mapping(body, Collectors.toSet())))
            .values());
  }

  private static Set<String> sessions(java.util.stream.Stream<String> keys) {
    return keys.collect(Collectors.toSet());
  }

  private static double rate(List<Answer> answers) {
    long prompt = answers.stream().mapToLong(a -> a.served().promptTokens()).sum();
    long cached = answers.stream().mapToLong(a -> a.served().cachedTokens()).sum();
    return 100.0 * cached / prompt;
  }

  /** The summary's cached / prompt figure for these answers. */
  private static String tokens(List<Answer> answers) {
    long prompt = answers.stream().mapToLong(a -> a.served().promptTokens()).sum();
    long cached = answers.stream().mapToLong(a -> a.served().cachedTokens()).sum();
    return String.format(
        Locale.ROOT, "%,d / %,d (%.1f %%)", cached, prompt, 100.0 * cached / prompt);
  }

  private static String run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new ReplayCommand(Terminal.captured(out, err)).run(args);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("%s%n%s", text, err.toString(StandardCharsets.UTF_8)).isEqualTo(Command.OK);
    return text;
  }

  private static void awaitRunning(StreamApp app) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (app.state() != KafkaStreams.State.RUNNING) {
      assertThat(System.nanoTime())
          .as("stream app RUNNING, is %s", app.state())
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }
}
