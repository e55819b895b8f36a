package io.prefixlog.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.admin.LimitCheck;
import io.prefixlog.streams.admin.TopicCreator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, item 4 on a real broker: a malformed record and a 30 MiB raw record in the middle of
 * valid traffic each become exactly one dead letter, every valid event its delta, and the app stays
 * running and healthy without looping; and the start-time limit check reads the real broker's and
 * topics' limits.
 */
@ExtendWith(KafkaExtension.class)
class DeadLetterPipelineIT {
  /**
   * One client for the class: a client made per call and dropped at once hung a test on a response
   * whose bytes had all arrived (HeaderOnlyLoadIT).
   */
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final JsonSerde<RawRequestEvent> RAW = JsonSerde.of(RawRequestEvent.class);
  private static final JsonSerde<DeadLetter> LETTERS = JsonSerde.of(DeadLetter.class);
  private static final String SESSION = "0123456789abcdef0123456789abcdef";
  private static final int VALID_BEFORE = 15;
  private static final int VALID_AFTER = 15;

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldDeadLetterAMalformedAndAnOversizedRecordOnceEachAndKeepRunning(KafkaCluster kafka)
      throws Exception {
    // Given
    String prefix = "dlq-it.";
    Map<String, String> settings = settings(kafka, prefix, "dlq-it-app");
    settings.put("PREFIXLOG_METRICS_PORT", "0");
    settings.put("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false");
    settings.put("PREFIXLOG_KV_INDEX_ENABLED", "false");
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    byte[] malformed = "{\"schema_version\":1,".getBytes(StandardCharsets.UTF_8);
    byte[] oversized = raw(randomText(30 << 20), 0);
    assertThat(oversized.length).isGreaterThan(30 << 20).isLessThan((int) config.maxRecordBytes());
    List<byte[]> inputs = new ArrayList<>();
    for (int i = 1; i <= VALID_BEFORE; i++) {
      inputs.add(raw(turn(i), i));
    }
    inputs.add(malformed);
    inputs.add(oversized);
    for (int i = VALID_BEFORE + 1; i <= VALID_BEFORE + VALID_AFTER; i++) {
      inputs.add(raw(turn(i), i));
    }

    try (StreamApp app = new StreamApp(config)) {
      app.start();
      awaitRunning(app);

      // When
      try (KafkaProducer<String, byte[]> producer = producer(kafka, config)) {
        for (byte[] input : inputs) {
          producer.send(new ProducerRecord<>(prefix + "requests.raw", SESSION, input)).get();
        }
      }

      // Then
      int valid = VALID_BEFORE + VALID_AFTER;
      List<ConsumerRecord<byte[], byte[]>> deltas =
          awaitRecords(kafka, config, prefix + "session.deltas", valid);
      List<ConsumerRecord<byte[], byte[]>> letters = awaitRecords(kafka, config, prefix + "dlq", 2);
      // Nothing loops: a few more seconds bring no further record, and no thread died.
      Thread.sleep(5_000);
      assertThat(readAll(kafka, config, prefix + "session.deltas")).hasSize(valid);
      assertThat(readAll(kafka, config, prefix + "dlq")).hasSize(2);
      assertThat(deltas.stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)))
          .doesNotHaveDuplicates()
          .hasSize(valid);

      DeadLetter invalid = LETTERS.fromBytes(letters.get(0).value());
      DeadLetter tooLarge = LETTERS.fromBytes(letters.get(1).value());
      assertThat(invalid.reason()).isEqualTo("invalid_json");
      assertThat(invalid.sourceOffset()).isEqualTo(VALID_BEFORE);
      assertThat(invalid.truncated()).isNull();
      assertThat(java.util.Base64.getDecoder().decode(invalid.originalValue()))
          .isEqualTo(malformed);
      assertThat(tooLarge.reason()).isEqualTo("body_too_large");
      assertThat(tooLarge.sourceTopic()).isEqualTo(prefix + "requests.raw");
      assertThat(tooLarge.sourcePartition()).isZero();
      assertThat(tooLarge.sourceOffset()).isEqualTo(VALID_BEFORE + 1);
      assertThat(tooLarge.truncated()).isTrue();
      assertThat(tooLarge.originalValueLen()).isEqualTo(oversized.length);
      assertThat(tooLarge.originalValueSha256()).isEqualTo(Sha256.hex(oversized));
      assertThat(letters.get(1).serializedValueSize()).isLessThan((int) config.maxRecordBytes());

      assertThat(app.state()).isEqualTo(KafkaStreams.State.RUNNING);
      HttpResponse<String> health =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + app.metricsPort() + "/health"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(Meters.count(app.metrics().registry(), "prefixlog_stream_thread_failures_total"))
          .isZero();
      assertThat(
              scrape(app)
                  .lines()
                  .filter(l -> l.startsWith("prefixlog_production_errors_total{"))
                  .toList())
          .isEmpty();
      System.out.println(
          "DeadLetterPipelineIT: events in "
              + inputs.size()
              + ", deltas "
              + deltas.size()
              + ", dead letters "
              + letters.size()
              + " ("
              + invalid.reason()
              + " at offset "
              + invalid.sourceOffset()
              + ", "
              + tooLarge.reason()
              + " at offset "
              + tooLarge.sourceOffset()
              + ": a "
              + tooLarge.originalValueLen()
              + "-byte input kept as a truncated "
              + letters.get(1).serializedValueSize()
              + "-byte letter), thread failures 0, health "
              + health.statusCode());
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldStopAndReportUnhealthyWhenEveryReplacementThreadFailsOnTheSameRecord(
      KafkaCluster kafka) throws Exception {
    // Given: a producer buffer of 1 MiB (an operator's override), so a valid 2 MiB body's
    // keyframe can never be written; the transaction aborts and every replacement thread meets
    // the same event. Two failures within the window are the limit; a short session timeout lets
    // the dead thread's partitions move on quickly.
    String prefix = "loop-it.";
    Map<String, String> settings = settings(kafka, prefix, "loop-it-app");
    settings.put("PREFIXLOG_METRICS_PORT", "0");
    settings.put("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false");
    settings.put("PREFIXLOG_KV_INDEX_ENABLED", "false");
    settings.put("PREFIXLOG_THREAD_FAILURE_LIMIT", "2");
    settings.put("PREFIXLOG_KAFKA_PRODUCER_BUFFER_MEMORY", "1048576");
    settings.put("PREFIXLOG_KAFKA_CONSUMER_SESSION_TIMEOUT_MS", "6000");
    StreamAppConfig config = StreamAppConfig.defaults(settings);

    try (StreamApp app = new StreamApp(config)) {
      app.start();
      awaitRunning(app);

      // When
      try (KafkaProducer<String, byte[]> producer = producer(kafka, config)) {
        producer
            .send(
                new ProducerRecord<>(prefix + "requests.raw", SESSION, raw(randomText(2 << 20), 1)))
            .get();
      }

      // Then
      long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
      while (app.problem().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      HttpResponse<String> health =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + app.metricsPort() + "/health"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.body())
          .isEqualTo(
              "stream threads failed 2 times within PT10M (PREFIXLOG_THREAD_FAILURE_LIMIT=2);"
                  + " last: org.apache.kafka.streams.errors.StreamsException; the app stopped"
                  + " instead of replacing them\n");
      assertThat(Meters.count(app.metrics().registry(), "prefixlog_stream_thread_failures_total"))
          .isEqualTo(2);
      Thread.sleep(3_000);
      assertThat(app.state()).isIn(KafkaStreams.State.ERROR, KafkaStreams.State.PENDING_ERROR);
      assertThat(Meters.count(app.metrics().registry(), "prefixlog_stream_thread_failures_total"))
          .isEqualTo(2);
      assertThat(readAll(kafka, config, prefix + "session.deltas")).isEmpty();
      System.out.println(
          "DeadLetterPipelineIT: poisoned: thread failures 2, state "
              + app.state()
              + ", health "
              + health.statusCode());
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldRefuseToStartWhenATopicOrTheBrokerTakesSmallerRecordsThanTheAppWrites(
      KafkaCluster kafka) throws Exception {
    // Given: a dead-letter topic created by hand with Kafka's 1 MiB default, and a second app
    // configured for 32 MiB bodies (65 MiB records) on the 33 MiB broker
    StreamAppConfig small = StreamAppConfig.defaults(settings(kafka, "limits-it.", "limits-it"));
    StreamAppConfig big =
        StreamAppConfig.defaults(with(settings(kafka, "limits-big-it.", "limits-big-it"), "32MiB"));
    StreamAppConfig fine = StreamAppConfig.defaults(settings(kafka, "limits-ok-it.", "ok-it"));
    try (Admin admin = Admin.create(Map.<String, Object>copyOf(kafka.clientConfig()))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("limits-it.dlq", 1, (short) 1)
                      .configs(Map.of("max.message.bytes", "1048588"))))
          .all()
          .get();
      // The broker lists a topic once its metadata reaches it, a moment after the controller
      // created it: the check reads the topics the broker lists (CI saw it pass before then)
      await()
          .alias("limits-it.dlq listed by the broker")
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.listTopics().names().get().contains("limits-it.dlq"));
      TopicCreator.createMissing(admin, small, Duration.ofSeconds(30));
      TopicCreator.createMissing(admin, fine, Duration.ofSeconds(30));

      // When / Then
      assertThatThrownBy(() -> LimitCheck.requireLimits(admin, small, Duration.ofSeconds(30)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "Kafka size limits below the 34603008 bytes a record may take with"
                  + " PREFIXLOG_MAX_BODY_BYTES=16777216 (2 x body + 1 MiB): topic limits-it.dlq"
                  + " max.message.bytes=1048588. Raise them (kafka-configs.sh --alter; the"
                  + " broker's message.max.bytes in its server.properties) or lower"
                  + " PREFIXLOG_MAX_BODY_BYTES.");
      assertThatThrownBy(() -> LimitCheck.requireLimits(admin, big, Duration.ofSeconds(30)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(
              "the 68157440 bytes a record may take with PREFIXLOG_MAX_BODY_BYTES=33554432")
          .hasMessageContaining("broker 1 message.max.bytes=34603008");
      LimitCheck.requireLimits(admin, fine, Duration.ofSeconds(30));
    }
  }

  /** The app's /metrics, as a scraper sees it. */
  private static String scrape(StreamApp app) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.metricsPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static Map<String, String> with(Map<String, String> settings, String maxBody) {
    settings.put("PREFIXLOG_MAX_BODY_BYTES", maxBody);
    return settings;
  }

  private Map<String, String> settings(KafkaCluster kafka, String prefix, String applicationId) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", prefix);
    settings.put("PREFIXLOG_APPLICATION_ID", applicationId);
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve(applicationId).toString());
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_PARTITIONS", "1");
    return settings;
  }

  private static String turn(int i) {
    StringBuilder text = new StringBuilder("{\"model\":\"m\",\"messages\":[");
    for (int t = 1; t <= i; t++) {
      text.append("{\"role\":\"user\",\"content\":\"question ")
          .append(t)
          .append(" about the sea and the sky\"},");
    }
    return text.append("{\"role\":\"user\",\"content\":\"and?\"}]}").toString();
  }

  /** Random letters: a body that does not compress below the limits under test. */
  private static String randomText(int length) {
    Random random = new Random(42);
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }

  private static byte[] raw(String bodyText, int n) {
    byte[] body = bodyText.getBytes(StandardCharsets.UTF_8);
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return RAW.toBytes(
        new RawRequestEvent(
            1,
            "req-" + n,
            1_700_000_000_000L + n,
            SESSION,
            "header:x-session-id",
            "127.0.0.1",
            "it/1.0",
            Map.of("x-session-id", "conversation-1"),
            "POST",
            "/v1/chat/completions",
            "m",
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
            null));
  }

  private static KafkaProducer<String, byte[]> producer(
      KafkaCluster kafka, StreamAppConfig config) {
    Map<String, Object> p = new HashMap<>(kafka.clientConfig());
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, (int) config.maxRecordBytes());
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 2 * config.maxRecordBytes());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private static List<ConsumerRecord<byte[], byte[]>> awaitRecords(
      KafkaCluster kafka, StreamAppConfig config, String topic, int count) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      List<ConsumerRecord<byte[], byte[]>> records = readAll(kafka, config, topic);
      if (records.size() >= count || System.nanoTime() > deadline) {
        return records;
      }
      Thread.sleep(500);
    }
  }

  /** Every committed record of the one partition of {@code topic}, from the start. */
  private static List<ConsumerRecord<byte[], byte[]>> readAll(
      KafkaCluster kafka, StreamAppConfig config, String topic) {
    Map<String, Object> c = new HashMap<>(kafka.clientConfig());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, (int) config.maxRecordBytes());
    c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, (int) config.maxRecordBytes());
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      org.apache.kafka.common.TopicPartition partition =
          new org.apache.kafka.common.TopicPartition(topic, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(partition) < end && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
      return records;
    }
  }

  private static void awaitRunning(StreamApp app) {
    await()
        .alias("stream app RUNNING")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(app::state, state -> state == KafkaStreams.State.RUNNING);
  }
}
