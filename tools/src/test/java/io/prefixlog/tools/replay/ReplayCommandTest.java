package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Version;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.EventSink.SinkException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {
  private static final String SECRET = "a-test-secret-of-enough-bytes";
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  @TempDir Path dir;
  private Path corpus;
  private final CapturedTerminal console = new CapturedTerminal();
  private final List<Sent> sent = new ArrayList<>();
  private String openedTopic;
  private int failSend = -1;

  @BeforeEach
  void writeCorpus() throws IOException {
    corpus =
        Files.writeString(
            dir.resolve("tiny.jsonl"),
            String.join(
                    "\n",
                    conversation("c1", "u", "a", "u", "a"),
                    conversation("c2", "u", "a"),
                    conversation("none", "u"),
                    conversation("c3", "u", "a", "u", "a", "u", "a"))
                + "\n");
  }

  /** A conversation line; roles {@code u} (user) and {@code a} (assistant). */
  private static String conversation(String id, String... roles) {
    StringBuilder s = new StringBuilder("{\"id\":\"" + id + "\",\"messages\":[");
    for (int i = 0; i < roles.length; i++) {
      s.append(i == 0 ? "" : ",")
          .append("{\"role\":\"")
          .append(roles[i].equals("u") ? "user" : "assistant")
          .append("\",\"content\":\"")
          .append(id)
          .append(" message ")
          .append(i)
          .append(" é😀\"}");
    }
    return s.append("]}").toString();
  }

  private record Sent(String key, RawRequestEvent event) {}

  private int replay(Map<String, String> env, String... args) {
    Terminal terminal = console.terminal(env);
    EventSink.Factory factory =
        (bootstrap, topic) -> {
          openedTopic = topic + "@" + bootstrap;
          return new EventSink() {
            @Override
            public void send(String key, byte[] value, Consumer<Exception> onResult) {
              int index = sent.size();
              sent.add(new Sent(key, SERDE.fromBytes(value)));
              onResult.accept(index == failSend ? new IOException("boom") : null);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          };
        };
    return new ReplayCommand(terminal, factory, () -> Optional.of(dir), () -> 1_700_000_000_000L)
        .run(args);
  }

  private int replay(String... args) {
    return replay(Map.of(), args);
  }

  @Test
  void shouldSendOneEventPerAssistantTurnInterleavedWithEachSessionInOrder() {
    // When
    int code = replay("--corpus", corpus.toString(), "--interleave", "2", "--secret", SECRET);

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(openedTopic).isEqualTo("prefixlog.requests.raw@127.0.0.1:9092");
    assertThat(sent)
        .extracting(s -> s.event().headers().get("x-session-id"))
        .containsExactly("c1", "c2", "c1", "c3", "c3", "c3");
    ReplayEvents events = new ReplayEvents(SECRET, "x");
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<byte[]> c3 =
        requests.of(CorpusFile.read(corpus).get(3)).stream().map(r -> r.body()).toList();
    List<Sent> c3Sent =
        sent.stream().filter(s -> s.event().headers().get("x-session-id").equals("c3")).toList();
    for (int i = 0; i < 3; i++) {
      Sent s = c3Sent.get(i);
      assertThat(s.key()).isEqualTo(events.sessionKey("c3").key());
      assertThat(s.event().sessionKey()).isEqualTo(s.key());
      assertThat(s.event().body().getBytes(StandardCharsets.UTF_8)).isEqualTo(c3.get(i));
      assertThat(s.event().model()).isEqualTo("prefixlog-demo");
      assertThat(s.event().ts()).isEqualTo(1_700_000_000_000L);
      assertThat(s.event().response()).isNull();
    }
    assertThat(console.out())
        .startsWith(
            "replay: 6 events from 3 conversations (1 corpus file) to prefixlog.requests.raw at"
                + " 127.0.0.1:9092\n")
        .endsWith("  acknowledged 6, failed 0\n");
    assertThat(console.err()).isEmpty();
  }

  @Test
  void shouldFailWhenAnySendFails() {
    // Given
    failSend = 2;

    // When
    int code = replay("--corpus", corpus.toString(), "--secret", SECRET);

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.out()).endsWith("  acknowledged 5, failed 1\n");
    assertThat(console.err())
        .isEqualTo(
            "prefixlog replay: 1 of 6 events were not acknowledged; first failure:"
                + " java.io.IOException: boom\n");
  }

  @Test
  void shouldReportWhyTheTopicCannotBeUsed() {
    // Given
    ReplayCommand command =
        new ReplayCommand(
            console.terminal(),
            (bootstrap, topic) -> {
              throw new SinkException("topic " + topic + " does not exist at " + bootstrap);
            },
            () -> Optional.of(dir),
            () -> 0L);

    // When
    int code =
        command.run(
            new String[] {
              "--corpus",
              corpus.toString(),
              "--topic-prefix",
              "x.",
              "--bootstrap",
              "h:1",
              "--secret",
              SECRET
            });

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .isEqualTo("prefixlog replay: topic x.requests.raw does not exist at h:1\n");
  }

  @Test
  void shouldWarnWhenTheDevelopmentSecretIsUsedAndNotWhenTheEnvironmentSetsOne() {
    // When
    int withDefault = replay("--corpus", corpus.toString());
    String defaultKey = sent.get(0).key();
    String warning = console.err();
    sent.clear();
    console.reset();
    int withEnv = replay(Map.of("PREFIXLOG_SESSION_SECRET", SECRET), "--corpus", corpus.toString());

    // Then
    assertThat(withDefault).isEqualTo(Command.OK);
    assertThat(warning)
        .isEqualTo(
            "prefixlog replay: warning: using the development session secret; set"
                + " PREFIXLOG_SESSION_SECRET (or --secret) to the stream app's and bridge's secret"
                + " outside development\n");
    assertThat(defaultKey)
        .isEqualTo(new ReplayEvents(ReplayCommand.DEV_SESSION_SECRET, "x").sessionKey("c1").key());
    assertThat(withEnv).isEqualTo(Command.OK);
    assertThat(console.err()).isEmpty();
    assertThat(sent.get(0).key()).isEqualTo(new ReplayEvents(SECRET, "x").sessionKey("c1").key());
  }

  @Test
  void shouldCapConversationsPerFileAndTurnsInTotal() {
    // When
    int code =
        replay(
            "--corpus",
            corpus.toString(),
            "--conversations",
            "2",
            "--turns",
            "2",
            "--secret",
            SECRET);

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(sent)
        .extracting(s -> s.event().headers().get("x-session-id"))
        .containsExactly("c1", "c2");
  }

  @Test
  void shouldReplayTheConversationsAsNewSessionsWithASessionSuffix() {
    // When
    int code =
        replay(
            "--corpus",
            corpus.toString(),
            "--conversations",
            "2",
            "--session-suffix",
            "@run2",
            "--secret",
            SECRET);

    // Then: the suffixed id is the session id and what the key is made from; the bodies are the
    // corpus's
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    ReplayEvents events = new ReplayEvents(SECRET, "x");
    assertThat(sent)
        .extracting(s -> s.event().headers().get("x-session-id"))
        .containsExactly("c1@run2", "c2@run2", "c1@run2");
    assertThat(sent.get(1).key()).isEqualTo(events.sessionKey("c2@run2").key());
    assertThat(sent.get(1).event().body())
        .isEqualTo(
            new String(
                new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT)
                    .of(CorpusFile.read(corpus).get(1))
                    .get(0)
                    .body(),
                StandardCharsets.UTF_8));
  }

  @Test
  void shouldKeyEachConversationByItsStartWithoutASessionHeader() {
    // When
    int code =
        replay(
            "--corpus",
            corpus.toString(),
            "--interleave",
            "2",
            "--no-session-header",
            "--secret",
            SECRET);

    // Then: no header captured, and one key per conversation, the one its first turn gives
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(sent).allSatisfy(s -> assertThat(s.event().headers()).isNull());
    assertThat(sent)
        .allSatisfy(s -> assertThat(s.event().sessionKeySource()).isEqualTo("conversation"));
    ReplayEvents events = new ReplayEvents(SECRET, Version.current(), false);
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<String> firstTurnKeys = new ArrayList<>();
    for (int conversation : new int[] {0, 1, 0, 3, 3, 3}) {
      firstTurnKeys.add(
          events.sessionKey(requests.of(CorpusFile.read(corpus).get(conversation)).get(0)).key());
    }
    assertThat(sent).extracting(Sent::key).containsExactlyElementsOf(firstTurnKeys);
    assertThat(sent).allSatisfy(s -> assertThat(s.event().sessionKey()).isEqualTo(s.key()));
    assertThat(new HashSet<>(firstTurnKeys)).hasSize(3);
  }

  @Test
  void shouldRefuseASessionSuffixWithoutASessionHeader() {
    // When
    int code =
        replay(
            "--corpus",
            corpus.toString(),
            "--no-session-header",
            "--session-suffix",
            "@run2",
            "--secret",
            SECRET);

    // Then
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(sent).isEmpty();
    assertThat(console.err())
        .contains("--session-suffix renames the sessions' ids, and --no-session-header sends none");
  }

  @Test
  void shouldRepeatARunWithTheSameSeed() {
    // When
    replay("--corpus", corpus.toString(), "--seed", "5", "--secret", SECRET);
    List<String> first =
        sent.stream().map(s -> s.event().requestId() + " " + s.event().headers()).toList();
    sent.clear();
    replay("--corpus", corpus.toString(), "--seed", "5", "--secret", SECRET);
    List<String> second =
        sent.stream().map(s -> s.event().requestId() + " " + s.event().headers()).toList();

    // Then
    assertThat(first).hasSize(6).isEqualTo(second);
    assertThat(sent.get(0).event().requestId())
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  }

  @Test
  void shouldRejectBadOptionsNamingThem() {
    assertThat(replay("--interleave", "0")).isEqualTo(Command.USAGE);
    assertThat(replay("--rate", "fast")).isEqualTo(Command.USAGE);
    assertThat(replay("--secret", "short")).isEqualTo(Command.USAGE);
    assertThat(replay("--corpus", dir.resolve("missing.jsonl").toString(), "--secret", SECRET))
        .isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog replay: --interleave must be at least 1, got 0\n"
                + "prefixlog replay: --rate needs a number, got 'fast'\n"
                + "prefixlog replay: --secret must be at least 16 bytes, got 5\n"
                + "prefixlog replay: --corpus "
                + dir.resolve("missing.jsonl")
                + ": no such file or directory\n");
    assertThat(sent).isEmpty();
  }

  @Test
  void shouldPrintHelpWithEveryOption() {
    // When
    int code = replay("--help");

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .isEqualTo(
            new ReplayCommand(
                    Terminal.captured(new ByteArrayOutputStream(), new ByteArrayOutputStream()))
                .help());
    for (String option :
        List.of(
            "corpus",
            "conversations",
            "turns",
            "interleave",
            "rate",
            "model",
            "secret",
            "session-suffix",
            "bootstrap",
            "topic-prefix",
            "seed",
            "progress",
            "help")) {
      assertThat(console.out()).contains("  --" + option);
    }
  }
}
