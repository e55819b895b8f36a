package io.prefixlog.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Version;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.reconstruct.ReconstructCommand;
import io.prefixlog.tools.replay.ReplayCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools against a real broker and the real stream app: replay the corpora into the raw topic,
 * let the stream app write the deltas, and reconstruct every body from them.
 */
@ExtendWith(KafkaExtension.class)
class EndToEndIT {
  private static final String SECRET = "end-to-end-test-session-secret";

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldReconstructEveryReplayedTurnFromTheStreamAppsDeltas(KafkaCluster kafka)
      throws Exception {
    // Given: the stream app, which creates the topics
    Path root = io.prefixlog.cli.ProjectHome.findFrom(Path.of("")).orElseThrow();
    Path tau = root.resolve("corpora/agentic/tau_bench_gpt4o_airline.jsonl");
    Conversation emoji =
        CorpusFile.read(root.resolve("corpora/chat/hh_rlhf_harmless_base_test.jsonl")).stream()
            .filter(c -> c.id().equals("hh_rlhf_harmless_base_test-1588"))
            .findFirst()
            .orElseThrow();
    Path chat =
        Files.writeString(
            dir.resolve("emoji.jsonl"),
            Files.readAllLines(root.resolve("corpora/chat/hh_rlhf_harmless_base_test.jsonl"))
                    .stream()
                    .filter(l -> l.contains("\"hh_rlhf_harmless_base_test-1588\""))
                    .findFirst()
                    .orElseThrow()
                + "\n");
    List<Conversation> tauConversations = CorpusFile.read(tau).subList(0, 3);
    int turns = emoji.requestCount();
    for (Conversation c : tauConversations) {
      turns += c.requestCount();
    }
    Map<String, String> settings =
        StreamApps.settings(
            kafka.bootstrapServers(), "e2e.", "tools-end-to-end", dir.resolve("state"));
    settings.put("PREFIXLOG_PARTITIONS", "3");
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings))) {
      StreamApps.start(app);

      // When: replay, wait for the deltas, reconstruct
      int replayed =
          new ReplayCommand(console.fresh())
              .run(
                  new String[] {
                    "--corpus",
                    tau.toString(),
                    "--corpus",
                    chat.toString(),
                    "--conversations",
                    "3",
                    "--interleave",
                    "2",
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    "e2e.",
                    "--secret",
                    SECRET
                  });
      String replayOut = console.out();
      StreamApps.committed(kafka, "e2e.session.deltas", turns, Duration.ofSeconds(90));
      int all =
          new ReconstructCommand(console.fresh())
              .run(
                  new String[] {"--bootstrap", kafka.bootstrapServers(), "--topic-prefix", "e2e."});
      String allOut = console.out();
      String emojiKey =
          new SessionKeyDeriver(
                  SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS)
              .derive(
                  Map.of("x-session-id", emoji.id()),
                  BodyFields.EMPTY,
                  "127.0.0.1",
                  "prefixlog-replay/" + Version.current())
              .key();
      int one =
          new ReconstructCommand(console.fresh())
              .run(
                  new String[] {
                    "--bootstrap",
                    kafka.bootstrapServers(),
                    "--topic-prefix",
                    "e2e.",
                    "--session",
                    emojiKey,
                    "--seq",
                    "3",
                    "--print"
                  });

      // Then
      assertThat(replayed).as(console.err()).isEqualTo(Command.OK);
      assertThat(replayOut)
          .startsWith(
              "replay: "
                  + turns
                  + " events from 4 conversations (2 corpus files) to e2e.requests.raw at "
                  + kafka.bootstrapServers());
      assertThat(all).as(allOut).isEqualTo(Command.OK);
      assertThat(allOut)
          .contains(row("sessions", 4) + "  (0 with problems)\n")
          .contains(row("turns", turns) + "\n")
          .contains(row("rebuilt ok", turns) + "  (")
          .contains(row("checksum mismatches", 0) + "\n")
          .contains(row("broken chains", 0) + "\n")
          .endsWith("OK: every turn was rebuilt and matched body_len and body_sha256\n");
      assertThat(one).as(console.err()).isEqualTo(Command.OK);
      byte[] expected =
          new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT)
              .of(emoji)
              .get(2)
              .body();
      assertThat(console.outBytes()).isEqualTo(expected);
      assertThat(new String(expected, StandardCharsets.UTF_8)).contains("👌🏾👍🏾");
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldSayClearlyThatTheTopicsDoNotExist(KafkaCluster kafka) {
    // When
    int replayed =
        new ReplayCommand(console.fresh())
            .run(
                new String[] {
                  "--bootstrap",
                  kafka.bootstrapServers(),
                  "--topic-prefix",
                  "absent.",
                  "--turns",
                  "1"
                });
    String replayErr = console.err();
    int reconstructed =
        new ReconstructCommand(console.fresh())
            .run(
                new String[] {
                  "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", "absent."
                });

    // Then
    assertThat(replayed).isEqualTo(Command.FAILED);
    assertThat(replayErr)
        .endsWith(
            "prefixlog replay: topic absent.requests.raw does not exist at "
                + kafka.bootstrapServers()
                + ": the stream app creates it when it starts (prefixlog up), or check"
                + " --topic-prefix\n");
    assertThat(reconstructed).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog reconstruct: topic absent.session.deltas does not exist at "
                + kafka.bootstrapServers()
                + " (the stream app creates it; check --topic-prefix)\n");
  }

  /** A row of the reconstruct summary. */
  private static String row(String label, long value) {
    return String.format(java.util.Locale.ROOT, "  %-21s %12d", label, value);
  }
}
