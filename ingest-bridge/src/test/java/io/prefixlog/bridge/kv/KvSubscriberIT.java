package io.prefixlog.bridge.kv;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The subscriber against real peers: a Python publisher speaking vLLM's framing (pyzmq/libzmq PUB
 * and ROUTER, msgpack payloads in both event encodings, uint64, int64 and byte hashes) and a real
 * Kafka broker. Each scenario reads {@code kv.events} (and {@code dlq}) back and checks it holds
 * exactly the records expected, in order: the batches as the publisher says prefixlog must render
 * them, and the markers the scenario implies.
 *
 * <p>ZMQ's slow joiner: a subscriber misses what is published before its subscription reaches the
 * publisher, so each run starts by sending batch 0 and re-sending it (same seq, same payload) until
 * the bridge has published it; the copies that arrive later are dropped as duplicates, so the
 * records do not depend on timing.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KvSubscriberIT {
  private static final String TOPIC = "kv";

  @Test
  void shouldPublishEveryBatchInOrderInEveryEncodingIncludingUnknownEventTypes(
      KafkaCluster kafka, TestInfo test) throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      // When: legacy arrays with uint64 hashes, maps with byte hashes, arrays with negative
      // int64 hashes, an outer map, and event types prefixlog does not know
      run.probe();
      run.send("encoding map", "hashes bytes", "send 3");
      run.send("encoding array", "hashes signed", "send 2");
      run.send("encoding map", "hashes int", "batch map", "send 1", "batch array");
      run.send("unknown", "send 1");

      // Then
      run.assertKvEvents();
      assertThat(run.counter(KvBridgeMetrics.EVENTS, "type", "other")).isEqualTo(2);
      assertThat(run.counter(KvBridgeMetrics.DEAD_LETTERS, "reason", "bad_event")).isZero();
    }
  }

  @Test
  void shouldRecoverDroppedRangesByReplayInBothReplyLayouts(KafkaCluster kafka, TestInfo test)
      throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      run.probe();
      run.send("send 2");
      run.awaitRecords();

      // When: 3..6 never go out live; vLLM >= 0.26 replies carry the topic frame
      run.send("drop 3 6", "send 6");
      run.awaitRecords();
      // and 10..11, replayed as older vLLM did, without the topic frame
      run.send("layout without-topic", "drop 10 11", "send 4");

      // Then: every batch, no marker after the first
      run.assertKvEvents();
      // one on connecting (the engine had published nothing yet), one per dropped range
      assertThat(run.counter(KvBridgeMetrics.REPLAYS, "outcome", "complete")).isEqualTo(3);
      assertThat(run.counter(KvBridgeMetrics.GAPS)).isZero();
    }
  }

  @Test
  void shouldMarkARangeTooOldToReplayAsAGap(KafkaCluster kafka, TestInfo test) throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "8")) {
      run.probe();
      run.send("send 4");
      run.awaitRecords();

      // When: 5..24 are withheld and the engine buffers only the last 8 batches (22..29)
      run.send("drop 5 24", "send 25");

      // Then
      run.dropExpectedBatches(5, 21);
      run.insertGapBefore(22, 5, 21);
      run.assertKvEvents();
      assertThat(run.counter(KvBridgeMetrics.MISSING)).isEqualTo(17);
    }
  }

  @Test
  void shouldMarkAGapAtOnceWhenTheEngineHasNoReplayEndpoint(KafkaCluster kafka, TestInfo test)
      throws Exception {
    try (Run run = new Run(kafka, test, false, "--no-replay")) {
      run.probe();
      run.send("send 2");
      run.awaitRecords();

      // When
      run.send("drop 3 4", "send 4");

      // Then
      run.dropExpectedBatches(3, 4);
      run.insertGapBefore(5, 3, 4);
      run.assertKvEvents();
    }
  }

  @Test
  void shouldMarkAPublisherRestart(KafkaCluster kafka, TestInfo test) throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      run.probe();
      run.send("send 3");
      run.awaitRecords();

      // When: the publisher process restarts (sockets re-bound, seq from 0, new hashes)
      run.send("restart");
      run.probe();
      run.send("send 2");

      // Then
      run.assertKvEvents();
      assertThat(run.counter(KvBridgeMetrics.RESTARTS)).isEqualTo(2);
    }
  }

  @Test
  void shouldDeadLetterMalformedFramesAndCarryOn(KafkaCluster kafka, TestInfo test)
      throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      run.probe();
      run.send("send 1");
      run.awaitRecords();

      // When: bad framing (no seq), then payloads that are not batches at seq 2 and 3
      run.send("garbage", "send 2");

      // Then: the two undecodable batches are gaps; the framing errors touch no sequence
      run.assertKvEvents();
      List<DeadLetter> letters = run.deadLetters(5);
      assertThat(letters)
          .extracting(DeadLetter::reason)
          .containsExactly(
              "bad_frame_count",
              "bad_frame_count",
              "bad_seq_frame",
              "malformed_msgpack",
              "not_a_batch");
      assertThat(letters).allSatisfy(l -> assertThat(l.producer()).isEqualTo("ingest-bridge"));
      // A payload that does not parse is left out of its letter: it could be token ids
      assertThat(Base64.getDecoder().decode(letters.get(3).originalValue())).isEmpty();
      assertThat(letters.get(4).detail())
          .isEqualTo(
              "expected an array or a map, found a str (source " + run.source.id() + ", seq 3)");
    }
  }

  @Test
  void shouldResumeAfterABridgeRestartWithoutAGapWhileTheEngineKeepsPublishing(
      KafkaCluster kafka, TestInfo test) throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      run.probe();
      run.send("send 4");
      run.awaitRecords();

      // When: the bridge restarts while the engine publishes 5 batches nobody receives
      run.stopBridge();
      run.send("send 5");
      run.startBridge();
      run.send("send 3");
      run.awaitRecordsResending();

      // Then: no marker after the first, every batch once, in order
      run.assertKvEvents();
      System.out.println(run.summary("bridge restarted"));
      assertThat(run.counter(KvBridgeMetrics.GAPS)).isZero();
      assertThat(run.counter(KvBridgeMetrics.RESTARTS)).isZero();
    }
  }

  @Test
  void shouldMarkExactlyOneRestartWhenTheEngineRestarts(KafkaCluster kafka, TestInfo test)
      throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      run.probe();
      run.send("send 3");
      run.awaitRecords();

      // When: the engine restarts (seq from 0, new hashes and engine times) and publishes 2
      run.send("restart");
      run.expectRestart(0);
      run.send("send 2");
      run.awaitRecordsResending();

      // Then: its batch 3 is gone (the new run has 0..1): the sequence went back
      run.assertKvEvents();
      System.out.println(run.summary("engine restarted"));
      assertThat(run.actual)
          .filteredOn(n -> "restart".equals(n.path("marker").asText()))
          .hasSize(2); // the first contact and the engine restart
      assertThat(run.counter(KvBridgeMetrics.GAPS)).isZero();
    }
  }

  @Test
  void shouldDetectAnEngineRestartWhoseSequenceIsAboveTheLastPublished(
      KafkaCluster kafka, TestInfo test) throws Exception {
    try (Run run = new Run(kafka, test, true, "--buffer", "64")) {
      run.probe();
      run.send("send 3");
      run.awaitRecords();

      // When: while the bridge is down, the engine restarts and publishes 0..7, beyond the old 3
      run.stopBridge();
      run.send("restart");
      run.expectRestart(3);
      run.send("send 8");
      run.startBridge();
      run.send("send 2");
      run.awaitRecordsResending();

      // Then: batch 3 carries another engine time now: one restart, the new run from 0
      run.assertKvEvents();
      System.out.println(run.summary("engine restarted above the old seq"));
      assertThat(run.counter(KvBridgeMetrics.RESTARTS)).isEqualTo(1);
      assertThat(run.counter(KvBridgeMetrics.GAPS)).isZero();
    }
  }

  @Test
  void shouldRecoverWhatTheEnginePublishedBeforeTheSubscriberConnected(
      KafkaCluster kafka, TestInfo test) throws Exception {
    try (Run run = new Run(kafka, test, true, false, "--buffer", "64")) {
      // Given: the engine published 0..4 with nobody subscribed (its PUB dropped them)
      run.expectRestart(0);
      run.send("send 5");

      // When
      run.startBridge();
      run.awaitRecords();
      run.send("send 2");
      run.awaitRecordsResending();

      // Then: replayed from 0, then live
      run.assertKvEvents();
      System.out.println(run.summary("late subscriber"));
      assertThat(run.counter(KvBridgeMetrics.REPLAYED)).isGreaterThanOrEqualTo(5);
      assertThat(run.counter(KvBridgeMetrics.GAPS)).isZero();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** One scenario: a publisher, a bridge subscribed to it, its topics, and what must come out. */
  private static final class Run implements AutoCloseable {
    final PythonPublisher publisher;
    final KvBridgeConfig config;
    KvBridge bridge;
    long engineBatches;
    final KvSource source;
    final Topics topics;
    final KafkaCluster kafka;
    final List<JsonNode> expected = new ArrayList<>();
    final List<String> expectedLetters = new ArrayList<>();
    final List<JsonNode> actual = new ArrayList<>();
    private KafkaConsumer<byte[], byte[]> consumer;

    Run(KafkaCluster kafka, TestInfo test, boolean replay, String... publisherArgs)
        throws Exception {
      this(kafka, test, replay, true, publisherArgs);
    }

    Run(
        KafkaCluster kafka,
        TestInfo test,
        boolean replay,
        boolean startBridge,
        String... publisherArgs)
        throws Exception {
      this.kafka = kafka;
      String name = test.getTestMethod().orElseThrow().getName();
      this.topics = Topics.withPrefix("kvit-" + name + ".");
      try (Admin admin = Admin.create(new HashMap<>(kafka.clientConfig()))) {
        admin
            .createTopics(
                List.of(
                    new NewTopic(topics.kvEvents().name(), 3, (short) 1),
                    new NewTopic(topics.deadLetters().name(), 1, (short) 1)))
            .all()
            .get(60, TimeUnit.SECONDS);
      }
      List<String> args = new ArrayList<>(List.of("--topic", TOPIC));
      args.addAll(List.of(publisherArgs));
      this.publisher = PythonPublisher.start(args.toArray(String[]::new));
      Map<String, String> settings = new HashMap<>();
      settings.put("PREFIXLOG_KV_ENDPOINTS", publisher.pubEndpoint);
      if (replay) {
        settings.put("PREFIXLOG_KV_REPLAY_ENDPOINTS", publisher.routerEndpoint);
      }
      settings.put("PREFIXLOG_KV_TOPIC", TOPIC);
      settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
      settings.put("PREFIXLOG_TOPIC_PREFIX", "kvit-" + name + ".");
      settings.put("PREFIXLOG_METRICS_PORT", "-1");
      settings.put("PREFIXLOG_KV_RECONNECT_MIN", "50ms");
      settings.put("PREFIXLOG_KV_RECONNECT_MAX", "500ms");
      settings.put("PREFIXLOG_KV_HEARTBEAT", "200ms"); // ZMTP PING/PONG with libzmq, exercised
      settings.put("PREFIXLOG_KV_REPLAY_TIMEOUT", "5s");
      this.config = KvBridgeConfig.defaults(settings);
      this.source = config.subscriptions().get(0).source();
      if (startBridge) {
        startBridge();
      }
    }

    long counter(String name, String... tags) {
      return Meters.count(bridge.metrics(), name, tags);
    }

    /**
     * Sends batch 0 of the publisher's current run and re-sends it until the bridge published it: a
     * restart marker (a first message at seq 0, or the sequence going back) and batch 0.
     */
    void probe() throws InterruptedException {
      LongSupplier batches = () -> counter(KvBridgeMetrics.BATCHES);
      long before = batches.getAsLong();
      expectRestart(0);
      send("send 1");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (batches.getAsLong() == before) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the bridge never received the probe");
        }
        Thread.sleep(50);
        publisher.command("resend");
      }
      awaitRecords();
    }

    /**
     * Waits until kv.events holds as many records as expected, re-sending the publisher's last
     * batch meanwhile: a batch the bridge's new subscription missed (ZMQ's slow joiner) then shows
     * up as a gap in the live stream and is replayed, so the records do not depend on timing.
     */
    void awaitRecordsResending() throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (actual.size() < expected.size() && System.nanoTime() < deadline) {
        poll(Duration.ofMillis(200));
        publisher.command("resend");
      }
      awaitRecords();
    }

    /** A bridge subscribed to the publisher, on the run's topics. */
    void startBridge() throws IOException {
      bridge = new KvBridge(config);
      bridge.start();
    }

    /** Stops the bridge (it sends what it queued); the publisher goes on. */
    void stopBridge() {
      bridge.close();
      bridge = null;
    }

    /**
     * One line: batches the engine published, batches in kv.events, duplicates among them (the same
     * seq twice in one engine run), gap markers, restart markers after the first record, and
     * whether the first record is a first-contact marker.
     */
    String summary(String scenario) {
      long batches = 0;
      long duplicates = 0;
      long gaps = 0;
      long restarts = 0;
      java.util.Set<Long> run = new java.util.HashSet<>();
      for (int i = 0; i < actual.size(); i++) {
        JsonNode record = actual.get(i);
        String marker = record.has("marker") ? record.get("marker").asText() : null;
        if (marker == null) {
          batches++;
          if (!run.add(record.get("seq").asLong())) {
            duplicates++;
          }
        } else if (marker.equals("restart")) {
          run.clear();
          restarts += i == 0 ? 0 : 1;
        } else {
          gaps += i == 0 ? 0 : 1;
        }
      }
      String first =
          actual.isEmpty() || !actual.get(0).has("marker")
              ? "none"
              : actual.get(0).get("marker").asText();
      return String.format(
          "%s: engine published %d batches; kv.events %d batches, %d duplicates, %d gaps, %d restarts"
              + " (first-contact marker: %s)",
          scenario, engineBatches, batches, duplicates, gaps, restarts, first);
    }

    /** Runs commands, adding what the publisher says must come out to the expectations. */
    void send(String... commands) {
      for (String command : commands) {
        for (String line : publisher.command(command)) {
          if (line.startsWith("expect batch ")) {
            expected.add(read(line.substring("expect batch ".length())));
            engineBatches++;
          } else if (line.startsWith("expect dead ")) {
            expectedLetters.add(line.substring("expect dead ".length()));
          } else if (line.startsWith("expect lost ")) {
            long seq = Long.parseLong(line.substring("expect lost ".length()));
            expectGap(seq, seq, seq);
          } else {
            throw new AssertionError("unexpected line from the publisher: " + line);
          }
        }
      }
    }

    void expectRestart(long seq) {
      ObjectNode marker = Json.mapper().createObjectNode();
      marker.put("data_parallel_rank", source.dataParallelRank());
      marker.set("seq", number(seq));
      marker.put("marker", "restart");
      expected.add(marker);
    }

    void expectGap(long seq, long from, long to) {
      expected.add(gap(seq, from, to));
    }

    private ObjectNode gap(long seq, long from, long to) {
      ObjectNode marker = Json.mapper().createObjectNode();
      marker.put("data_parallel_rank", source.dataParallelRank());
      marker.set("seq", number(seq));
      marker.put("marker", "gap");
      marker.set("missing_from", number(from));
      marker.set("missing_to", number(to));
      return marker;
    }

    /** As a JSON parser reads the number back: an int node when it fits. */
    private static JsonNode number(long value) {
      return value == (int) value
          ? Json.mapper().getNodeFactory().numberNode((int) value)
          : Json.mapper().getNodeFactory().numberNode(value);
    }

    void dropExpectedBatches(long from, long to) {
      expected.removeIf(
          n -> !n.has("marker") && n.get("seq").asLong() >= from && n.get("seq").asLong() <= to);
    }

    void insertGapBefore(long seq, long from, long to) {
      expected.add(indexOfBatch(seq), gap(seq, from, to));
    }

    private int indexOfBatch(long seq) {
      for (int i = 0; i < expected.size(); i++) {
        if (!expected.get(i).has("marker") && expected.get(i).get("seq").asLong() == seq) {
          return i;
        }
      }
      throw new AssertionError("no batch " + seq + " expected");
    }

    /** Waits until kv.events holds as many records as expected so far. */
    void awaitRecords() {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (actual.size() < expected.size()) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "kv.events holds "
                  + actual.size()
                  + " records, expected "
                  + expected.size()
                  + ": "
                  + actual);
        }
        poll(Duration.ofMillis(200));
      }
    }

    /** Exactly the records expected, in order; nothing more arrives within a second. */
    void assertKvEvents() {
      awaitRecords();
      long quiet = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (System.nanoTime() < quiet) {
        poll(Duration.ofMillis(100));
      }
      assertThat(actual).containsExactlyElementsOf(expected);
    }

    private void poll(Duration timeout) {
      if (consumer == null) {
        Map<String, Object> config = new HashMap<>(kafka.clientConfig());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        consumer = new KafkaConsumer<>(config);
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
          partitions.add(new TopicPartition(topics.kvEvents().name(), p));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
      }
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(source.id());
        ObjectNode value = (ObjectNode) read(new String(record.value(), StandardCharsets.UTF_8));
        assertThat(value.get("schema_version").asInt()).isEqualTo(1);
        assertThat(value.get("source").asText()).isEqualTo(source.id());
        assertThat(value.get("endpoint").asText()).isEqualTo(source.endpoint());
        assertThat(value.get("topic").asText()).isEqualTo(TOPIC);
        assertThat(value.get("ts").asLong()).isPositive();
        value.remove(List.of("schema_version", "source", "endpoint", "topic", "ts"));
        actual.add(value);
      }
    }

    /** The first {@code n} dead letters, in order. */
    List<DeadLetter> deadLetters(int n) {
      assertThat(expectedLetters).hasSize(n);
      Map<String, Object> config = new HashMap<>(kafka.clientConfig());
      config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      JsonSerde<DeadLetter> serde = JsonSerde.of(DeadLetter.class);
      List<DeadLetter> letters = new ArrayList<>();
      try (KafkaConsumer<byte[], byte[]> dlq = new KafkaConsumer<>(config)) {
        TopicPartition partition = new TopicPartition(topics.deadLetters().name(), 0);
        dlq.assign(List.of(partition));
        dlq.seekToBeginning(List.of(partition));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (letters.size() < n && System.nanoTime() < deadline) {
          for (ConsumerRecord<byte[], byte[]> record : dlq.poll(Duration.ofMillis(200))) {
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(source.id());
            letters.add(serde.fromBytes(record.value()));
          }
        }
      }
      assertThat(letters).extracting(DeadLetter::reason).containsExactlyElementsOf(expectedLetters);
      return letters;
    }

    private static JsonNode read(String json) {
      try {
        return Json.mapper().readTree(json);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + json, e);
      }
    }

    @Override
    public void close() {
      try {
        if (bridge != null) {
          bridge.close();
        }
      } finally {
        if (consumer != null) {
          consumer.close();
        }
        publisher.close();
      }
    }
  }
}
