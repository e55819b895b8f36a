package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.session.SessionStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Erasing a chain of 100,000 turns: the order's own transaction and each later one hold at most
 * {@code PREFIXLOG_BULK_BATCH} tombstoned turns and deleted dedup entries, the work goes on across
 * commits in bulk punctuations from a cursor kept in the store, and the acknowledgement comes once,
 * when all of it is done.
 */
class LongChainErasureTest {
  private static final String ERASED = "0123456789abcdef0123456789abcdef";
  private static final String KEPT = "fedcba9876543210fedcba9876543210";
  private static final int TURNS = 100_000;
  private static final int BATCH = 1000;
  private static final long T0 = 1_764_000_000_000L;
  private static final Duration INTERVAL = Duration.ofMillis(100);

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, DeltaRecord> deltas;
  private TestOutputTopic<String, byte[]> metadata;
  private TestOutputTopic<String, byte[]> lookups;
  private TestOutputTopic<String, ErasureAck> acks;
  private MeterRegistry registry;
  private String erasedChain;

  private void start() {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    settings.put("PREFIXLOG_BULK_BATCH", Integer.toString(BATCH));
    settings.put("PREFIXLOG_BULK_INTERVAL", INTERVAL.toMillis() + "ms");
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    registry = new SimpleMeterRegistry();
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry)),
            StreamApp.streamsProperties(config),
            Instant.ofEpochMilli(T0));
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
            JsonSerde.of(DeltaRecord.class).deserializer());
    metadata =
        driver.createOutputTopic(
            topics.requestsMetadata().name(),
            Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    lookups =
        driver.createOutputTopic(
            topics.chunkLookups().name(),
            Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    acks =
        driver.createOutputTopic(
            topics.erasures().name(),
            Serdes.String().deserializer(),
            JsonSerde.of(ErasureAck.class).deserializer());
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldEraseAHundredThousandTurnChainInBoundedStepsAndAcknowledgeOnce() {
    // Given: a session at turn 100,000 of its chain, a dedup entry for each turn, and another
    // session the erasure must not touch. Two turns are real; the state and the dedup entries of
    // the other 99,998 are written to the stores as the processor writes them.
    start();
    send(ERASED, "req-1", chat(1), T0 + 1);
    send(ERASED, "req-2", chat(2), T0 + 2);
    send(KEPT, "kept-1", chat(1), T0 + 3);
    String chain = deltas.readKeyValuesToList().get(0).value.chain();
    erasedChain = chain;
    metadata.readKeyValuesToList();
    lookups.readKeyValuesToList();
    KeyValueStore<String, byte[]> states = driver.getKeyValueStore(SessionStores.STATE);
    SessionState two = SessionStateCodec.decode(states.get(ERASED));
    states.put(
        ERASED,
        SessionStateCodec.encode(
            new SessionState(chain, TURNS + 1, T0 + 10, two.bases(), two.log())));
    WindowStore<String, byte[]> requestIds = driver.getWindowStore(SessionStores.REQUEST_IDS);
    for (int seq = 3; seq <= TURNS; seq++) {
      requestIds.put(ERASED + "/req-" + seq, seenRequest(chain, seq), T0 + 10);
    }

    // When: the erase order comes
    sendErase("erase-long", ERASED, T0 + 20);

    // Then: its transaction tombstoned at most a step of turns, and nothing is acknowledged yet
    List<String> tombstoned = new ArrayList<>(tombstones(deltas.readKeyValuesToList()));
    List<String> metadataTombstoned = new ArrayList<>(tombstonedKeys(metadata));
    List<String> lookupsTombstoned = new ArrayList<>(tombstonedKeys(lookups));
    assertThat(tombstoned).hasSizeLessThanOrEqualTo(BATCH);
    assertThat(acks.isEmpty()).isTrue();
    assertThat(Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "erasure"))
        .isEqualTo(1.0);

    // When: the session sends again mid-erasure, a retry of its first request among it
    send(ERASED, "req-1", chat(1), T0 + 30);

    // Then: a turn of a new chain, not a duplicate of the chain being erased
    List<KeyValue<String, DeltaRecord>> fresh =
        deltas.readKeyValuesToList().stream().filter(kv -> kv.value != null).toList();
    assertThat(fresh).hasSize(1);
    assertThat(fresh.get(0).value.seq()).isEqualTo(1);
    assertThat(fresh.get(0).value.chain()).isNotEqualTo(chain);
    metadataTombstoned.addAll(tombstonedKeys(metadata));
    lookupsTombstoned.addAll(tombstonedKeys(lookups));

    // When: the bulk punctuations go on until the acknowledgement
    int steps = 0;
    double deletedBefore = deletedEntries();
    while (acks.isEmpty()) {
      driver.advanceWallClockTime(INTERVAL);
      steps++;
      List<String> step = tombstones(deltas.readKeyValuesToList());
      double deletedAfter = deletedEntries();
      // Then: each step tombstones at most a batch of turns and deletes at most a batch of
      // entries
      assertThat(step.size() + (deletedAfter - deletedBefore)).isLessThanOrEqualTo(BATCH);
      tombstoned.addAll(step);
      deletedBefore = deletedAfter;
      assertThat(steps).as("steps").isLessThanOrEqualTo(2 * TURNS / BATCH + 2);
    }

    // Then: every turn of the chain tombstoned once, in seq order, in all three outputs
    List<String> expected = new ArrayList<>();
    for (int seq = 1; seq <= TURNS; seq++) {
      expected.add(ERASED + "/" + chain + "/" + seq);
    }
    assertThat(tombstoned).isEqualTo(expected);
    metadataTombstoned.addAll(tombstonedKeys(metadata));
    lookupsTombstoned.addAll(tombstonedKeys(lookups));
    assertThat(metadataTombstoned).isEqualTo(expected);
    assertThat(lookupsTombstoned).isEqualTo(expected);
    // and acknowledged once, with what went
    List<KeyValue<String, ErasureAck>> acked = acks.readKeyValuesToList();
    assertThat(acked).hasSize(1);
    ErasureAck ack = acked.get(0).value;
    assertThat(ack.outcome()).isEqualTo(ErasureAck.ERASED);
    assertThat(ack.chain()).isEqualTo(chain);
    assertThat(ack.turnsTombstoned()).isEqualTo(TURNS);
    assertThat(ack.requestIdsRemoved()).isEqualTo(TURNS);
    assertThat(ack.basesRemoved()).isPositive();
    assertThat(ack.stateCompacted()).isTrue();
    // and the new chain's dedup entry and the other session's are kept
    assertThat(entries(requestIds, ERASED)).isEqualTo(1);
    assertThat(entries(requestIds, KEPT)).isEqualTo(1);
    assertThat(Meters.gaugeValue(registry, "prefixlog_bulk_pending", "work", "erasure")).isZero();
    assertThat(Meters.count(registry, "prefixlog_bulk_keys_total", "work", "erasure_turns"))
        .isEqualTo(TURNS);
    assertThat(Meters.count(registry, "prefixlog_bulk_keys_total", "work", "erasure_request_ids"))
        .isEqualTo(TURNS);
    assertThat(Meters.count(registry, "prefixlog_session_erasures_total", "outcome", "erased"))
        .isEqualTo(1);
  }

  private void send(String session, String requestId, byte[] body, long timestamp) {
    raw.pipeInput(
        session, RawEvents.bytes(RawEvents.of(session, requestId, timestamp, body)), timestamp);
  }

  private void sendErase(String eraseId, String session, long timestamp) {
    byte[] order =
        JsonSerde.of(EraseRequest.class)
            .toBytes(EraseRequest.forSession(eraseId, timestamp, session, null));
    raw.pipeInput(
        new TestRecord<>(session, order, ControlHeaders.markErase(new RecordHeaders()), timestamp));
  }

  private static List<String> tombstones(List<KeyValue<String, DeltaRecord>> records) {
    assertThat(records).allMatch(kv -> kv.value == null);
    return records.stream().map(kv -> kv.key).toList();
  }

  /** The keys tombstoned in what the topic holds now; other records must be the new chain's. */
  private List<String> tombstonedKeys(TestOutputTopic<String, byte[]> topic) {
    List<KeyValue<String, byte[]>> records = topic.readKeyValuesToList();
    assertThat(records.stream().filter(kv -> kv.value != null).map(kv -> kv.key))
        .allMatch(key -> key.endsWith("/1") && !key.contains(erasedChain + "/"));
    return records.stream().filter(kv -> kv.value == null).map(kv -> kv.key).toList();
  }

  private double deletedEntries() {
    return Meters.count(registry, "prefixlog_bulk_keys_total", "work", "erasure_request_ids");
  }

  /** The session's entries in the dedup store. */
  private static long entries(WindowStore<String, byte[]> store, String session) {
    long n = 0;
    try (KeyValueIterator<Windowed<String>, byte[]> all = store.all()) {
      while (all.hasNext()) {
        if (all.next().key.key().startsWith(session + "/")) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * A dedup entry as the processor writes it ({@code SeenRequest}, version 1): the body's SHA-256,
   * then the turn key without its session.
   */
  private static byte[] seenRequest(String chain, int seq) {
    byte[] digest = HexFormat.of().parseHex("ab".repeat(32));
    byte[] turn = (chain + "/" + seq).getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[1 + 32 + turn.length];
    bytes[0] = 1;
    System.arraycopy(digest, 0, bytes, 1, 32);
    System.arraycopy(turn, 0, bytes, 33, turn.length);
    return bytes;
  }

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
          .append("words that make a turn worth a delta against the one before. ".repeat(4))
          .append("\"}");
    }
    return ("{\"model\":\"test-model\",\"messages\":[" + messages + "]}")
        .getBytes(StandardCharsets.UTF_8);
  }
}
