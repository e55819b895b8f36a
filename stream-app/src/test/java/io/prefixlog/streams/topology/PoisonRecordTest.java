package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault in the session-delta processor in the middle of a turn: the turn must either leave
 * nothing behind (a dead letter, the session as it was) or fail the task, so that exactly-once
 * aborts what it wrote; never commit a seq and a base without their delta, on which every later
 * delta of the session would be based. The fault comes from {@link FaultInjector}, a {@code
 * processor.wrapper.class}.
 */
class PoisonRecordTest {
  private static final String SESSION = "0123456789abcdef0123456789abcdef";
  private static final long T0 = 1_764_000_000_000L;

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, byte[]> deltas;
  private TestOutputTopic<byte[], DeadLetter> deadLetters;
  private final Map<String, byte[]> bodies = new HashMap<>();

  private void start(String faultAt, String faultRequestId) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    settings.put("PREFIXLOG_KAFKA_PROCESSOR_WRAPPER_CLASS", FaultInjector.class.getName());
    settings.put("PREFIXLOG_KAFKA_PREFIXLOG_FAULT_AT", faultAt);
    settings.put("PREFIXLOG_KAFKA_PREFIXLOG_FAULT_REQUEST_ID", faultRequestId);
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(new SimpleMeterRegistry())),
            StreamApp.streamsProperties(config));
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
            Serdes.ByteArray().deserializer());
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
  void shouldFailTheTaskWhenAFaultStrikesAfterTheTurnsFirstWrite() {
    // Given: three turns stored; a fault armed at the fourth turn's delta forward, which comes
    // after its base, state and request id are written
    start(FaultInjector.AT_DELTA_FORWARD, "req-4");
    for (int turn = 1; turn <= 3; turn++) {
      send(turn);
    }
    List<KeyValue<String, byte[]>> before = deltas.readKeyValuesToList();

    // When
    Throwable thrown = catchThrowable(() -> send(4));

    // Then: the task fails (a StreamsException: Kafka Streams closes it dirty, exactly-once aborts
    // the transaction with the turn's writes, and the replacement thread replays the turn from the
    // last commit); no dead letter, which would have committed those writes without the delta
    assertThat(thrown)
        .as("the fourth turn's fault")
        .isInstanceOf(StreamsException.class)
        .hasRootCauseMessage(FaultInjector.MESSAGE + " at " + FaultInjector.AT_DELTA_FORWARD);
    assertThat(deadLetters.isEmpty()).isTrue();
    assertThat(before).hasSize(3);
  }

  @Test
  void shouldDeadLetterAFaultBeforeTheTurnsFirstWriteAndRebuildEveryTurnAfterIt() {
    // Given: three turns stored; a fault armed at the fourth turn's read of the session state
    start(FaultInjector.AT_STATE_READ, "req-4");
    for (int turn = 1; turn <= 3; turn++) {
      send(turn);
    }

    // When: the fourth turn meets it, then ten more turns come
    for (int turn = 4; turn <= 14; turn++) {
      send(turn);
    }

    // Then: the fourth turn is a dead letter and nothing else; the session went on from the third,
    // and every stored turn rebuilds byte for byte from the deltas alone
    List<DeadLetter> letters = deadLetters.readValuesToList();
    assertThat(letters).extracting(DeadLetter::reason).containsExactly("processing_error");
    Map<String, byte[]> stored = new LinkedHashMap<>();
    deltas.readKeyValuesToList().forEach(kv -> stored.put(kv.key, kv.value));
    assertThat(stored).hasSize(13);
    assertThat(rebuiltRequestIds(stored))
        .containsExactly(
            "req-1", "req-2", "req-3", "req-5", "req-6", "req-7", "req-8", "req-9", "req-10",
            "req-11", "req-12", "req-13", "req-14");
  }

  /**
   * The request ids of the turns that rebuild from {@code stored} to the body sent, in seq order.
   */
  private List<String> rebuiltRequestIds(Map<String, byte[]> stored) {
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    stored.forEach((key, value) -> rebuilder.addTopicRecord(key, value, key));
    Map<Long, String> matched = new java.util.TreeMap<>();
    RebuildReport report =
        rebuilder.run(
            new RebuildListener() {
              @Override
              public void onVerifiedBody(String chainKey, long seq, byte[] body) {
                bodies.forEach(
                    (requestId, sent) -> {
                      if (Sha256.hex(sent).equals(Sha256.hex(body))) {
                        matched.put(seq, requestId);
                      }
                    });
              }
            });
    assertThat(report.problems()).isEmpty();
    assertThat(report.counts().failures(false)).isZero();
    return List.copyOf(matched.values());
  }

  private void send(int turn) {
    String requestId = "req-" + turn;
    byte[] body = chat(turn);
    bodies.put(requestId, body);
    raw.pipeInput(
        SESSION, RawEvents.bytes(RawEvents.of(SESSION, requestId, T0 + turn, body)), T0 + turn);
  }

  /** A chat of {@code turns} user messages, each turn the one before with one more. */
  private static byte[] chat(int turns) {
    StringBuilder messages = new StringBuilder();
    for (int i = 1; i <= turns; i++) {
      if (i > 1) {
        messages.append(',');
      }
      messages
          .append("{\"role\":\"user\",\"content\":\"message ")
          .append(i)
          .append(": ")
          .append("a few words that make the turn worth a delta against the one before. ".repeat(4))
          .append("\"}");
    }
    return ("{\"model\":\"test-model\",\"messages\":[" + messages + "]}")
        .getBytes(StandardCharsets.UTF_8);
  }
}
