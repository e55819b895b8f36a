package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;

/**
 * The session-delta processor obeying erase orders (issue 13, erasure): the session's state, bases
 * and dedup entries go, the current chain's delta and lookup keys are tombstoned, the bytes leave
 * the RocksDB files on disk, an acknowledgement is written, and the next turn starts a new chain.
 * Bad orders are dead letters and change nothing.
 */
class SessionErasureTest {
  private static final String ERASED = "0123456789abcdef0123456789abcdef";
  private static final String KEPT = "fedcba9876543210fedcba9876543210";
  private static final long T0 = 1_764_000_000_000L;

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, DeltaRecord> deltas;
  private TestOutputTopic<String, byte[]> lookups;
  private TestOutputTopic<String, ErasureAck> acks;
  private TestOutputTopic<byte[], DeadLetter> deadLetters;
  private MeterRegistry registry;
  private int requests;

  private void start() {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    registry = new SimpleMeterRegistry();
    Properties properties = StreamApp.streamsProperties(config);
    properties.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, SmallMemtables.class);
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry)), properties);
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
  void shouldDropTheSessionsStateTombstoneItsChainAndLeaveNoByteOnDisk() throws IOException {
    // Given: two sessions with four and two turns; each has a marker only its bodies hold
    start();
    String erasedMarker = "ERASED-MARKER-7c1e4a9b02d35f68e1a4c09b7d2e5f31";
    String keptMarker = "KEPT-MARKER-3f9a0c5e71b2d48a6c0e9f1b2a7d3c58aa";
    for (int turn = 1; turn <= 2; turn++) {
      send(KEPT, chat(keptMarker, turn), T0 + turn);
    }
    for (int turn = 1; turn <= 4; turn++) {
      send(ERASED, chat(erasedMarker, turn), T0 + 10 + turn);
    }
    List<KeyValue<String, DeltaRecord>> before = deltas.readKeyValuesToList();
    String chain = before.get(2).value.chain();
    assertThat(lookups.readKeyValuesToList()).hasSize(6);
    // Memtables of 64 KiB: RocksDB flushes the bases to files on disk (in the background).
    awaitFiles(erasedMarker, true); // the scan can see bases on disk
    awaitFiles(keptMarker, true);

    // When
    sendErase("erase-1", ERASED, null, T0 + 100);

    // Then: the chain's four keys are tombstoned on both outputs, in seq order
    List<String> chainKeys =
        List.of(
            ERASED + "/" + chain + "/1",
            ERASED + "/" + chain + "/2",
            ERASED + "/" + chain + "/3",
            ERASED + "/" + chain + "/4");
    List<KeyValue<String, DeltaRecord>> deltaTombstones = deltas.readKeyValuesToList();
    assertThat(deltaTombstones).extracting(kv -> kv.key).containsExactlyElementsOf(chainKeys);
    assertThat(deltaTombstones).extracting(kv -> kv.value).containsOnlyNulls();
    List<KeyValue<String, byte[]>> lookupTombstones = lookups.readKeyValuesToList();
    assertThat(lookupTombstones).extracting(kv -> kv.key).containsExactlyElementsOf(chainKeys);
    assertThat(lookupTombstones).extracting(kv -> kv.value).containsOnlyNulls();
    // and acknowledged, with what went
    List<KeyValue<String, ErasureAck>> acked = acks.readKeyValuesToList();
    assertThat(acked).hasSize(1);
    ErasureAck ack = acked.get(0).value;
    assertThat(acked.get(0).key).isEqualTo("erase-1");
    assertThat(ack.scope()).isEqualTo(ErasureAck.SCOPE_SESSION);
    assertThat(ack.sessionKey()).isEqualTo(ERASED);
    assertThat(ack.outcome()).isEqualTo(ErasureAck.ERASED);
    assertThat(ack.chain()).isEqualTo(chain);
    assertThat(ack.turnsTombstoned()).isEqualTo(4);
    assertThat(ack.basesRemoved()).isPositive();
    assertThat(ack.requestIdsRemoved()).isEqualTo(4);
    assertThat(ack.stateCompacted()).isTrue();
    // and the bytes left the state directory; the other session's did not
    awaitFiles(erasedMarker, false); // obsolete files may be deleted in the background
    assertThat(filesHolding(erasedMarker)).isEmpty();
    assertThat(filesHolding(keptMarker)).isNotEmpty();
    assertThat(Meters.count(registry, "prefixlog_session_erasures_total", "outcome", ack.outcome()))
        .isEqualTo(1);

    // When: the erased session comes back, and the kept one goes on
    send(ERASED, chat("new", 1), T0 + 200);
    send(KEPT, chat(keptMarker, 3), T0 + 201);

    // Then: a new chain from seq 1, a full record; the other session's chain carries on
    List<KeyValue<String, DeltaRecord>> after = deltas.readKeyValuesToList();
    DeltaRecord fresh = after.get(0).value;
    assertThat(fresh.chain()).isNotEqualTo(chain);
    assertThat(fresh.seq()).isEqualTo(1);
    assertThat(fresh.kind()).isEqualTo("full");
    assertThat(after.get(1).key).endsWith("/3");
    assertThat(after.get(1).value.kind()).isEqualTo("delta");
  }

  @Test
  void shouldForgetTheRequestIdsSoThatARetriedRequestIsATurnOfTheNewChain() {
    // Given: a turn, erased
    start();
    byte[] body = chat("retry", 1);
    sendWithId(ERASED, "req-fixed", body, T0);
    deltas.readKeyValuesToList();
    sendErase("erase-2", ERASED, null, T0 + 1);
    deltas.readKeyValuesToList();

    // When: the same request id arrives again within the dedup window
    sendWithId(ERASED, "req-fixed", body, T0 + 2);

    // Then: no dedup entry kept it out (it was erased with the session)
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).value.seq()).isEqualTo(1);
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isZero();
  }

  @Test
  void shouldKeepAChainWithATurnAtOrAfterBefore() {
    // Given
    start();
    send(ERASED, chat("a", 1), T0 + 1);
    send(ERASED, chat("a", 2), T0 + 50);
    String chain = deltas.readKeyValuesToList().get(0).value.chain();

    // When: only chains that ended before T0 + 10 are to go
    sendErase("erase-3", ERASED, T0 + 10, T0 + 60);
    send(ERASED, chat("a", 3), T0 + 70);

    // Then: nothing tombstoned, the chain carries on at seq 3
    List<KeyValue<String, DeltaRecord>> out = deltas.readKeyValuesToList();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).key).isEqualTo(ERASED + "/" + chain + "/3");
    ErasureAck ack = acks.readValue();
    assertThat(ack.outcome()).isEqualTo(ErasureAck.KEPT);
    assertThat(ack.chain()).isEqualTo(chain);
    assertThat(ack.turnsTombstoned()).isZero();
  }

  @Test
  void shouldEraseAChainThatEndedBeforeBefore() {
    // Given
    start();
    send(ERASED, chat("b", 1), T0 + 1);
    send(ERASED, chat("b", 2), T0 + 2);
    deltas.readKeyValuesToList();

    // When
    sendErase("erase-4", ERASED, T0 + 10, T0 + 60);

    // Then
    assertThat(deltas.readKeyValuesToList()).hasSize(2).allMatch(kv -> kv.value == null);
    assertThat(acks.readValue().outcome()).isEqualTo(ErasureAck.ERASED);
  }

  @Test
  void shouldAcknowledgeAnOrderForASessionItHoldsNothingOf() {
    // Given
    start();

    // When
    sendErase("erase-5", ERASED, null, T0);

    // Then
    ErasureAck ack = acks.readValue();
    assertThat(ack.outcome()).isEqualTo(ErasureAck.ABSENT);
    assertThat(ack.turnsTombstoned()).isZero();
    assertThat(ack.basesRemoved()).isZero();
    assertThat(ack.chain()).isNull();
    assertThat(deltas.isEmpty()).isTrue();
  }

  @Test
  void shouldDeadLetterABadOrderAndChangeNothing() {
    // Given: a session with two turns
    start();
    send(ERASED, chat("c", 1), T0 + 1);
    send(ERASED, chat("c", 2), T0 + 2);
    deltas.readKeyValuesToList();

    // When: an order keyed by another session, one that is not JSON, one without erase id
    Headers headers = ControlHeaders.markErase(new RecordHeaders());
    byte[] wrongKey =
        JsonSerde.of(EraseRequest.class)
            .toBytes(EraseRequest.forSession("erase-6", T0, KEPT, null));
    raw.pipeInput(new TestRecord<>(ERASED, wrongKey, headers, T0 + 3));
    raw.pipeInput(new TestRecord<>(ERASED, utf8("{not json"), headers, T0 + 4));
    raw.pipeInput(
        new TestRecord<>(
            ERASED,
            utf8("{\"schema_version\":1,\"session_key\":\"" + ERASED + "\"}"),
            headers,
            T0 + 5));
    send(ERASED, chat("c", 3), T0 + 6);

    // Then: three dead letters, no ack, and the chain went on
    List<DeadLetter> letters = deadLetters.readValuesToList();
    assertThat(letters).extracting(DeadLetter::reason).containsOnly("invalid_control").hasSize(3);
    assertThat(letters)
        .extracting(DeadLetter::detail)
        .containsExactly(
            "the record key is not the order's session_key",
            "not an erase request: JsonParseException",
            "erase_id is missing or not 1-128 characters of [A-Za-z0-9._-]");
    assertThat(acks.isEmpty()).isTrue();
    assertThat(deltas.readKeyValuesToList()).extracting(kv -> kv.value.seq()).containsExactly(3L);
  }

  private void send(String session, byte[] body, long timestamp) {
    sendWithId(session, "req-" + (++requests), body, timestamp);
  }

  private void sendWithId(String session, String requestId, byte[] body, long timestamp) {
    raw.pipeInput(
        session, RawEvents.bytes(RawEvents.of(session, requestId, timestamp, body)), timestamp);
  }

  private void sendErase(String eraseId, String session, Long before, long timestamp) {
    byte[] order =
        JsonSerde.of(EraseRequest.class)
            .toBytes(EraseRequest.forSession(eraseId, timestamp, session, before));
    raw.pipeInput(
        new TestRecord<>(session, order, ControlHeaders.markErase(new RecordHeaders()), timestamp));
  }

  /** A chat request of {@code turns} user messages, each repeating the marker. */
  /**
   * About 15 KB of words no other message repeats: the bases store keeps a turn as the text it
   * added, so only new text makes its records big enough to leave the 64 KiB memtables for files.
   */
  private static String uniqueWords(int message) {
    StringBuilder words = new StringBuilder();
    for (int k = 0; k < 1500; k++) {
      words.append('w').append(message * 100_000 + k).append(' ');
    }
    return words.toString();
  }

  private static byte[] chat(String marker, int turns) {
    StringBuilder messages = new StringBuilder();
    for (int i = 1; i <= turns; i++) {
      if (i > 1) {
        messages.append(',');
      }
      messages
          .append("{\"role\":\"user\",\"content\":\"turn ")
          .append(i)
          .append(' ')
          .append(marker)
          .append(" and some words to make it long enough to be worth a delta: ")
          .append(uniqueWords(i))
          .append("\"}");
    }
    return utf8("{\"model\":\"test-model\",\"messages\":[" + messages + "]}");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Memtables of 64 KiB, so that a few turns' bases reach RocksDB's files on disk (where an erasure
   * must remove them from), as a running app's do under load.
   */
  public static final class SmallMemtables implements RocksDBConfigSetter {
    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
      options.setWriteBufferSize(64 << 10);
    }

    @Override
    public void close(String storeName, Options options) {}
  }

  /** Waits (up to 10 s) until some file holds the marker, or until none does. */
  private void awaitFiles(String marker, boolean present) throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (filesHolding(marker).isEmpty() == present && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (present) {
      assertThat(filesHolding(marker)).as("files holding " + marker).isNotEmpty();
    }
  }

  /** The files under the state directory whose bytes contain {@code marker}. */
  private List<Path> filesHolding(String marker) throws IOException {
    byte[] needle = utf8(marker);
    List<Path> holding = new ArrayList<>();
    try (Stream<Path> files = Files.walk(stateDir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        if (contains(Files.readAllBytes(file), needle)) {
          holding.add(file);
        }
      }
    }
    return holding;
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
