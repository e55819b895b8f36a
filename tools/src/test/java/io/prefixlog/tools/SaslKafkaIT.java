package io.prefixlog.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.Ports;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The services and the tools against a broker that wants SASL: a broker whose client listener is
 * SASL_PLAINTEXT with PLAIN users, the stream app and the {@code prefixlog} command (a child JVM,
 * as an operator runs it) given their credentials as {@code PREFIXLOG_KAFKA_*} variables. Replay
 * writes through it, the stream app processes through it, reconstruct reads through it; a wrong
 * password is refused with the broker's reason and writes nothing.
 *
 * <p>Its own broker, not the test JVM's shared one: that one's listener is PLAINTEXT for every
 * other test. A second, PLAINTEXT listener here serves this test's own checks.
 */
class SaslKafkaIT {
  private static final String PREFIX = "sasl.";
  private static final String USER = "operator";
  private static final String PASSWORD = "sasl-it-password-4k9Q";
  private static final String SECRET = "sasl-it-session-secret";
  private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldCaptureProcessAndReadThroughASaslListenerWithThePassedThroughCredentials()
      throws Exception {
    // Given: a broker with a SASL_PLAINTEXT listener, and the stream app on it
    int[] ports = Ports.free("127.0.0.1", 3);
    String sasl = "127.0.0.1:" + ports[2];
    Path root = io.prefixlog.cli.ProjectHome.findFrom(Path.of("")).orElseThrow();
    Path chat = root.resolve("corpora/chat/hh_rlhf_harmless_base_test.jsonl");
    int turns = 0;
    for (var c : CorpusFile.read(chat).subList(0, 3)) {
      turns += c.requestCount();
    }
    try (KafkaBroker kafka = KafkaBroker.start(saslBroker(ports))) {
      Map<String, String> settings =
          StreamApps.settings(sasl, PREFIX, "sasl-it", dir.resolve("state"));
      settings.putAll(credentials(PASSWORD));
      try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings))) {
        StreamApps.start(app);

        // When: replay and reconstruct, each with the credentials in its environment
        Result replay = replay(PASSWORD, chat, 3, sasl);
        assertThat(replay.exit()).as(replay.err()).isZero();
        StreamApps.committed(kafka, PREFIX + "session.deltas", turns, Duration.ofSeconds(90));
        Result reconstruct =
            prefixlog(
                credentials(PASSWORD),
                "reconstruct",
                "--bootstrap",
                sasl,
                "--topic-prefix",
                PREFIX);
        // and replay with a wrong password
        Result refused = replay("not-the-password", chat, 1, sasl);

        // Then: every turn captured, processed and rebuilt through the SASL listener
        assertThat(replay.out()).contains(turns + " events");
        assertThat(reconstruct.exit()).as(reconstruct.err()).isZero();
        assertThat(reconstruct.out())
            .contains(String.format(Locale.ROOT, "  %-21s %12d", "rebuilt ok", turns))
            .endsWith("OK: every turn was rebuilt and matched body_len and body_sha256\n");
        // the wrong password refused by the broker, said so, and nothing more written
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.err()).contains("Authentication failed");
        assertThat(refused.err()).doesNotContain("not-the-password");
        assertThat(records(kafka, PREFIX + "requests.raw")).isEqualTo(turns);
      }
    }
  }

  /** How many records {@code topic} holds (its producers are not transactional). */
  private static long records(KafkaBroker kafka, String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            kafka.clientConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = TopicScan.assignAll(consumer, topic);
      return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** The broker: PLAINTEXT (this test's checks), CONTROLLER, and SASL with the PLAIN user. */
  private KafkaBroker.Options saslBroker(int[] ports) {
    String host = "127.0.0.1";
    return KafkaBroker.Options.defaults(dir.resolve("kafka"))
        .withBrokerPort(ports[0])
        .withControllerPort(ports[1])
        .withBrokerProperty(
            "listeners",
            "PLAINTEXT://"
                + host
                + ":"
                + ports[0]
                + ",CONTROLLER://"
                + host
                + ":"
                + ports[1]
                + ",SASL://"
                + host
                + ":"
                + ports[2])
        .withBrokerProperty(
            "advertised.listeners",
            "PLAINTEXT://" + host + ":" + ports[0] + ",SASL://" + host + ":" + ports[2])
        .withBrokerProperty(
            "listener.security.protocol.map",
            "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL:SASL_PLAINTEXT")
        .withBrokerProperty("listener.name.sasl.sasl.enabled.mechanisms", "PLAIN")
        .withBrokerProperty(
            "listener.name.sasl.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
                + USER
                + "=\""
                + PASSWORD
                + "\";");
  }

  /** The client side, as the README's SASL recipe gives it. */
  private static Map<String, String> credentials(String password) {
    Map<String, String> env = new HashMap<>();
    env.put("PREFIXLOG_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
    env.put("PREFIXLOG_KAFKA_SASL_MECHANISM", "PLAIN");
    env.put(
        "PREFIXLOG_KAFKA_SASL_JAAS_CONFIG",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + USER
            + "\" password=\""
            + password
            + "\";");
    return env;
  }

  private record Result(int exit, String out, String err) {}

  /** {@code prefixlog replay} of the first {@code conversations} of {@code corpus}. */
  private Result replay(String password, Path corpus, int conversations, String bootstrap)
      throws IOException, InterruptedException {
    return prefixlog(
        credentials(password),
        "replay",
        "--corpus",
        corpus.toString(),
        "--conversations",
        Integer.toString(conversations),
        "--bootstrap",
        bootstrap,
        "--topic-prefix",
        PREFIX,
        "--secret",
        SECRET);
  }

  /** {@code prefixlog ARGS} in a child JVM with {@code env} added to this one's environment. */
  private Result prefixlog(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Prefixlog.class.getName());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("PREFIXLOG_KAFKA_"));
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(CHILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "prefixlog "
              + args[0]
              + " still ran after "
              + CHILD_TIMEOUT
              + ": "
              + Files.readString(err));
    }
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
