package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.systemtests.pipeline.Traffic.Event;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-injection suite's scenarios of poison records and bounded work, beside {@link
 * FaultInjectionIT} and in its form: real stream-app processes on a broker of the suite's own, and
 * after each scenario the {@link Ledger} line (events in, distinct requests, deltas, rebuilt,
 * mismatches, duplicates, missing, dead letters).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BoundedWorkIT {
  private static final int PARTITIONS = 6;
  private static final int LONG_CHAIN = 100_000;
  private static final JsonSerde<RawRequestEvent> RAW = JsonSerde.of(RawRequestEvent.class);
  private static final JsonSerde<DeltaRecord> DELTA = JsonSerde.of(DeltaRecord.class);
  private static final JsonSerde<ErasureAck> ACK = JsonSerde.of(ErasureAck.class);

  private static KafkaBroker kafka;

  @TempDir static Path brokerDir;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() {
    kafka = KafkaBroker.start(KafkaBroker.Options.defaults(brokerDir.resolve("kafka")));
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void poisonRecordMidTurn() throws Exception {
    // Given: interleaved sessions, and a fault armed in the stream app at the delta forward of a
    // turn with ten more turns of its session after it: the turn's base, state and dedup entry
    // are written by then
    String prefix = "bw1.";
    Map<String, String> settings = settings(prefix, "bw1-app", "a");
    Traffic traffic = Traffic.of(12, System.currentTimeMillis(), 1000);
    List<Event> events = traffic.interleaved();
    Event poison = turnWithTenAfter(events);
    settings.put("PREFIXLOG_KAFKA_PROCESSOR_WRAPPER_CLASS", MidTurnFault.class.getName());
    settings.put("PREFIXLOG_KAFKA_PREFIXLOG_FAULT_REQUEST_ID", poison.requestId());
    Pipeline.createTopics(kafka, settings);
    try (ChildProcess app = Pipeline.streamApp(dir, settings, "bw1");
        KafkaProducer<String, byte[]> producer = Traffic.producer(kafka)) {
      // When
      Traffic.send(producer, prefix + "requests.raw", events);

      // Then: every request stored once and rebuilt, the poisoned turn and the ten after it
      // included, and no dead letter: the fault failed the task, exactly-once aborted the turn's
      // writes, and the replacement thread replayed it
      Ledger ledger =
          Ledger.take(
                  "15 poison record mid-turn", kafka, prefix, events.size(), Duration.ofMinutes(2))
              .print();
      ledger.assertLossless(events.size());
      assertThat(ledger.deadLetters).isEmpty();
      assertThat(app.isAlive()).as("app alive; log:\n%s", app.logTail(40)).isTrue();
      assertThat(Files.readString(app.logFile()))
          .as("the fault struck and failed the task")
          .contains("injected fault mid-turn")
          .contains("PartialWriteException");
    }
  }

  @Test
  @Order(2)
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void erasingAHundredThousandTurnChainAcrossARestart() throws Exception {
    // Given: a session of 100,000 turns and realistic traffic of other sessions, all stored
    String prefix = "bw2.";
    Map<String, String> settings = settings(prefix, "bw2-app", "a");
    // Steps of 500 keys: 400 steps of 100 ms for the chain's tombstones and dedup entries, time
    // to see the first ones committed and kill the app mid-way.
    settings.put("PREFIXLOG_BULK_BATCH", "500");
    Pipeline.createTopics(kafka, settings);
    long now = System.currentTimeMillis();
    String longSession = "00c0ffee00c0ffee00c0ffee00c0ffee";
    List<Event> chain = longChain(longSession, now - LONG_CHAIN - 60_000);
    List<Event> others = Traffic.of(6, now, 1000).interleaved();
    ChildProcess first = Pipeline.streamApp(dir, settings, "bw2-a");
    ChildProcess second = null;
    try (KafkaProducer<String, byte[]> producer = Traffic.producer(kafka)) {
      Traffic.send(producer, prefix + "requests.raw", chain);
      Traffic.send(producer, prefix + "requests.raw", others);
      Pipeline.awaitCommitted(
          kafka, prefix + "session.deltas", chain.size() + others.size(), first);

      // When: the session's erase order, then the app SIGKILLed as soon as the first of the
      // chain's tombstones are committed, and started again
      Map<TopicPartition, Long> beforeOrder = endOffsets(prefix + "session.deltas");
      String eraseId = "bw2-erase";
      byte[] order =
          JsonSerde.of(EraseRequest.class)
              .toBytes(
                  EraseRequest.forSession(eraseId, System.currentTimeMillis(), longSession, null));
      producer
          .send(
              new ProducerRecord<>(
                  prefix + "requests.raw",
                  null,
                  System.currentTimeMillis(),
                  longSession,
                  order,
                  ControlHeaders.markErase(new RecordHeaders())))
          .get(30, TimeUnit.SECONDS);
      awaitTombstones(beforeOrder, longSession, first);
      ProcessHandle.of(first.pid()).orElseThrow().destroyForcibly();
      assertThat(first.waitFor(Duration.ofSeconds(30))).hasValue(137);
      long committedByFirst = tombstones(beforeOrder, longSession);
      second = Pipeline.streamApp(dir, settings, "bw2-b");

      // Then: the erasure was not one transaction: the killed instance had committed some of the
      // chain's tombstones, not all
      assertThat(committedByFirst).isPositive().isLessThan(LONG_CHAIN);
      // and it went on after the restart, from where the killed instance had committed it, to
      // one acknowledgement of the whole chain
      ErasureAck ack = awaitAck(prefix, eraseId, second);
      assertThat(ack.outcome()).isEqualTo(ErasureAck.ERASED);
      assertThat(ack.turnsTombstoned()).isEqualTo(LONG_CHAIN);
      assertThat(ack.requestIdsRemoved()).isEqualTo(LONG_CHAIN);
      Ledger ledger =
          Ledger.take(
                  "16 erase a 100,000-turn chain, SIGKILL mid-way",
                  kafka,
                  prefix,
                  chain.size() + others.size(),
                  Duration.ofMinutes(3))
              .print();
      // every turn of the chain is tombstoned, each once per output as the last value of its key;
      // the other sessions are whole
      long othersDistinct = others.stream().map(Event::requestId).distinct().count();
      assertThat(ledger.problems).isEmpty();
      assertThat(ledger.distinctRequests).isEqualTo(LONG_CHAIN + othersDistinct);
      assertThat(ledger.missing).as("erased turns").isEqualTo(LONG_CHAIN);
      assertThat(ledger.deltas).isEqualTo(othersDistinct);
      assertThat(ledger.rebuilt).isEqualTo(othersDistinct);
      assertThat(ledger.mismatches).isZero();
      assertThat(ledger.duplicates).isZero();
      assertThat(
              ledger.newest.entrySet().stream()
                  .filter(e -> DeltaRecord.sessionOfKey(e.getKey()).equals(longSession))
                  .filter(e -> e.getValue() == null)
                  .count())
          .isEqualTo(LONG_CHAIN);
      assertThat(second.isAlive()).as(second.logTail(40)).isTrue();
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  // --- helpers ---

  private Map<String, String> settings(String prefix, String applicationId, String instance) {
    Map<String, String> settings =
        new HashMap<>(
            Pipeline.settings(
                kafka,
                prefix,
                applicationId,
                dir.resolve("state-" + prefix + instance),
                PARTITIONS));
    settings.put("PREFIXLOG_KAFKA_METADATA_MAX_AGE_MS", "1000");
    return settings;
  }

  /** A turn of the session with the most turns, ten before its last. */
  private static Event turnWithTenAfter(List<Event> events) {
    Map<String, List<Event>> bySession = new LinkedHashMap<>();
    events.forEach(e -> bySession.computeIfAbsent(e.sessionKey(), k -> new ArrayList<>()).add(e));
    List<Event> longest =
        bySession.values().stream()
            .max((a, b) -> Integer.compare(a.size(), b.size()))
            .orElseThrow();
    assertThat(longest).as("a session of at least 12 turns").hasSizeGreaterThanOrEqualTo(12);
    return longest.get(longest.size() - 11);
  }

  /**
   * {@value #LONG_CHAIN} turns of one session, a millisecond apart from {@code startMs}: an agent
   * whose context keeps its system prompt and its last three messages, so each body is about 1 KB
   * and shares most of itself with the one before.
   */
  private static List<Event> longChain(String session, long startMs) {
    String system = "You are a coding agent. Use the tools, keep answers short. ".repeat(8);
    List<Event> events = new ArrayList<>(LONG_CHAIN);
    for (int turn = 1; turn <= LONG_CHAIN; turn++) {
      StringBuilder messages = new StringBuilder();
      messages.append("{\"role\":\"system\",\"content\":\"").append(system).append("\"}");
      for (int m = Math.max(1, turn - 2); m <= turn; m++) {
        messages
            .append(",{\"role\":\"")
            .append(m % 2 == 0 ? "assistant" : "user")
            .append("\",\"content\":\"step ")
            .append(m)
            .append(": run the tests of module ")
            .append(m % 97)
            .append(" and report what failed\"}");
      }
      byte[] body =
          ("{\"model\":\"agent-model\",\"messages\":[" + messages + "]}")
              .getBytes(StandardCharsets.UTF_8);
      BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
      String requestId = "long#" + turn;
      long ts = startMs + turn;
      RawRequestEvent event =
          new RawRequestEvent(
              1,
              requestId,
              ts,
              session,
              "header:x-session-id",
              "127.0.0.1",
              "agent/1.0",
              Map.of(),
              "POST",
              "/v1/chat/completions",
              "agent-model",
              encoded.text(),
              encoded.encoding().wireName(),
              (long) body.length,
              Sha256.hex(body),
              false,
              null,
              null,
              null,
              null,
              null,
              null,
              null);
      events.add(new Event(session, requestId, ts, RAW.toBytes(event)));
    }
    return events;
  }

  /** The committed end of every partition of {@code topic}. */
  private static Map<TopicPartition, Long> endOffsets(String topic) {
    try (KafkaConsumer<String, byte[]> consumer = committedReader()) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      return consumer.endOffsets(partitions);
    }
  }

  /**
   * Waits until the deltas topic holds a committed tombstone of the session's after {@code from}.
   */
  private static void awaitTombstones(
      Map<TopicPartition, Long> from, String session, ChildProcess app) {
    try (KafkaConsumer<String, byte[]> consumer = committedReader()) {
      consumer.assign(from.keySet());
      from.forEach(consumer::seek);
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (true) {
        assertThat(System.nanoTime()).as("the first committed tombstones").isLessThan(deadline);
        assertThat(app.isAlive()).as("stream app alive; log:\n%s", app.logTail(40)).isTrue();
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(50))) {
          if (r.value() == null && DeltaRecord.sessionOfKey(r.key()).equals(session)) {
            return;
          }
        }
      }
    }
  }

  /** The committed tombstones of the session's turns on the deltas topic after {@code from}. */
  private static long tombstones(Map<TopicPartition, Long> from, String session) {
    try (KafkaConsumer<String, byte[]> consumer = committedReader()) {
      consumer.assign(from.keySet());
      from.forEach(consumer::seek);
      Map<TopicPartition, Long> end = consumer.endOffsets(from.keySet());
      long tombstones = 0;
      while (from.keySet().stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() == null && DeltaRecord.sessionOfKey(r.key()).equals(session)) {
            tombstones++;
          }
        }
      }
      return tombstones;
    }
  }

  private static KafkaConsumer<String, byte[]> committedReader() {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
  }

  /** The one acknowledgement of the order, once it comes. */
  private static ErasureAck awaitAck(String prefix, String eraseId, ChildProcess app) {
    List<ErasureAck> acks = new ArrayList<>();
    try {
      await()
          .alias("the acknowledgement of " + eraseId)
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                assertThat(app.isAlive())
                    .as("stream app alive; log:\n%s", app.logTail(40))
                    .isTrue();
                acks.clear();
                for (ConsumerRecord<String, byte[]> r :
                    Topics.readAtLeast(
                        kafka.bootstrapServers(), prefix + "erasures", 0, Duration.ofSeconds(30))) {
                  if (eraseId.equals(r.key())) {
                    acks.add(ACK.fromBytes(r.value()));
                  }
                }
                return !acks.isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("no acknowledgement; the app's log ends:\n" + app.logTail(80), e);
    }
    assertThat(acks).as("acknowledgements of " + eraseId).hasSize(1);
    return acks.get(0);
  }
}
