package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.embedded.junit.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@ExtendWith(KafkaExtension.class)
class KafkaBrokerIT {
  private static final Logger LOGGER = LoggerFactory.getLogger(KafkaBrokerIT.class);
  private static final String TOPIC_PREFIX = "kafka-broker-it.";
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern BROKER_LINE = Pattern.compile("broker pid=(\\d+) port=(\\d+)");

  @Test
  void shouldConsumeExactlyWhatWasProducedToACreatedTopic(KafkaCluster kafka) throws Exception {
    // Given
    String topic = createTopic(kafka, "plain", Map.of());

    // When
    try (KafkaProducer<String, String> producer = stringProducer(kafka, Map.of())) {
      producer.send(new ProducerRecord<>(topic, "k1", "v1")).get();
      producer.send(new ProducerRecord<>(topic, "k2", "v2")).get();
      producer.send(new ProducerRecord<>(topic, "k1", "v3")).get();
    }

    // Then
    assertThat(consumeStrings(kafka, topic, 3, "read_uncommitted"))
        .containsExactly("k1=v1", "k2=v2", "k1=v3");
  }

  @Test
  void shouldShowOnlyCommittedTransactionsToReadCommittedConsumers(KafkaCluster kafka)
      throws Exception {
    // Given
    String topic = createTopic(kafka, "transactions", Map.of());
    Map<String, Object> transactional =
        Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TOPIC_PREFIX + "transactional-producer");

    // When
    try (KafkaProducer<String, String> producer = stringProducer(kafka, transactional)) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "s1", "committed-1"));
      producer.send(new ProducerRecord<>(topic, "s1", "committed-2"));
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "s1", "aborted")).get();
      producer.abortTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "s2", "committed-3"));
      producer.commitTransaction();
    }

    // Then
    assertThat(consumeStrings(kafka, topic, 3, "read_committed"))
        .containsExactly("s1=committed-1", "s1=committed-2", "s2=committed-3");
  }

  @Test
  void shouldRoundTripAFiveMebibyteRecord(KafkaCluster kafka) throws Exception {
    // Given
    String topic = createTopic(kafka, "large", Map.of("max.message.bytes", "20971520"));
    byte[] value = new byte[5 * 1024 * 1024];
    new Random(42).nextBytes(value);
    Map<String, Object> producerConfig = new HashMap<>(kafka.clientConfig());
    producerConfig.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 20971520);

    // When
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(topic, "big".getBytes(StandardCharsets.UTF_8), value))
          .get();
    }

    // Then
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            consumerConfig(kafka, "read_uncommitted"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer.assign(List.of(new TopicPartition(topic, 0)));
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (records.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertThat(records).hasSize(1);
    assertThat(new String(records.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("big");
    assertThat(records.get(0).value()).hasSize(5 * 1024 * 1024).isEqualTo(value);
  }

  @Test
  void shouldStopTheBrokerWhenTheJvmThatStartedItIsKilled(@TempDir Path dir) throws Exception {
    // Given: an intermediate JVM that starts a broker
    ChildProcess host =
        ChildProcess.builder(TestMains.BrokerHost.class.getName())
            .args(List.of(dir.resolve("broker").toString()))
            .logFile(dir.resolve("host.log"))
            .start();
    long brokerPid;
    int port;
    try {
      Matcher started = awaitLine(host, BROKER_LINE, Duration.ofSeconds(90));
      brokerPid = Long.parseLong(started.group(1));
      port = Integer.parseInt(started.group(2));
      assertThat(Ports.accepts("127.0.0.1", port)).isTrue();

      // When: SIGKILL, so no shutdown hook of the intermediate JVM runs
      ProcessHandle.of(host.pid()).orElseThrow().destroyForcibly();
      assertThat(host.waitFor(TIMEOUT)).hasValue(137);
    } finally {
      host.close();
    }

    // Then
    long killedNanos = System.nanoTime();
    long deadline = killedNanos + TIMEOUT.toNanos();
    while ((isRunning(brokerPid) || Ports.accepts("127.0.0.1", port))
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    LOGGER.info(
        "Broker gone after its parent was killed brokerPid={} goneMillis={}",
        brokerPid,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNanos));
    assertThat(isRunning(brokerPid)).as("broker process %d running", brokerPid).isFalse();
    assertThat(Ports.accepts("127.0.0.1", port)).as("port %d accepting", port).isFalse();
    assertThat(Files.readString(dir.resolve("broker/broker.log")))
        .endsWith("prefixlog watchdog: parent process gone (stdin reached end-of-file), halting\n");
  }

  @Test
  void shouldKeepTopicsAndRecordsWhenRestartedOnTheSameDataDir(@TempDir Path dir) throws Exception {
    // Given
    KafkaBroker.Options options = KafkaBroker.Options.defaults(dir);
    String topic = TOPIC_PREFIX + "restart";
    try (KafkaBroker first = KafkaBroker.start(options)) {
      try (Admin admin = Admin.create(first.clientConfig())) {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      }
      try (KafkaProducer<String, String> producer = stringProducer(first, Map.of())) {
        producer.send(new ProducerRecord<>(topic, "k", "before restart")).get();
      }
    }
    String metaProperties = Files.readString(dir.resolve("data/meta.properties"));

    // When
    try (KafkaBroker second = KafkaBroker.start(options)) {

      // Then
      assertThat(consumeStrings(second, topic, 1, "read_uncommitted"))
          .containsExactly("k=before restart");
      assertThat(Files.readString(dir.resolve("data/meta.properties"))).isEqualTo(metaProperties);
      // One partition, one segment: the topic's bytes on disk are that segment's.
      assertThat(second.topicLogBytes(topic))
          .isPositive()
          .isEqualTo(Files.size(dir.resolve("data/" + topic + "-0/00000000000000000000.log")));
      assertThat(second.topicLogBytes(TOPIC_PREFIX + "absent")).isZero();
    }
  }

  @Test
  void shouldFailFastQuotingTheLogWhenTheBrokerExitsBeforeBeingReady(@TempDir Path dir)
      throws Exception {
    // Given: a data dir that looks formatted but is not
    Files.createDirectories(dir.resolve("data"));
    Files.writeString(dir.resolve("data/meta.properties"), "garbage\n");

    // When / Then
    assertThatThrownBy(() -> KafkaBroker.start(KafkaBroker.Options.defaults(dir)))
        .isInstanceOf(StartupException.class)
        .hasMessageStartingWith(
            "Kafka broker exited with status 1 before becoming ready; see "
                + dir.resolve("broker.log")
                + ", which ends with:\n")
        .hasMessageContaining("java.lang.RuntimeException: Error: node ID not found in " + dir)
        .extracting(e -> ((StartupException) e).logFile())
        .isEqualTo(dir.resolve("broker.log"));
  }

  @Test
  void shouldFailQuotingTheFormatToolWhenABrokerPropertyIsInvalid(@TempDir Path dir) {
    // Given
    KafkaBroker.Options options =
        KafkaBroker.Options.defaults(dir).withBrokerProperty("num.io.threads", "zero");

    // When / Then
    assertThatThrownBy(() -> KafkaBroker.start(options))
        .isInstanceOf(StartupException.class)
        .hasMessageStartingWith(
            "Kafka storage format failed with exit status 1 for data dir "
                + dir
                + "; see "
                + dir.resolve("broker.log")
                + ", which ends with:\n")
        .hasMessageContaining(
            "ConfigException: Invalid value zero for configuration num.io.threads");
    assertThat(KafkaBroker.isFormatted(dir)).isFalse();
  }

  private static String createTopic(KafkaCluster kafka, String name, Map<String, String> config)
      throws Exception {
    String topic = TOPIC_PREFIX + name;
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(config))).all().get();
    }
    return topic;
  }

  private static KafkaProducer<String, String> stringProducer(
      KafkaCluster kafka, Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.putAll(extra);
    return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
  }

  private static Map<String, Object> consumerConfig(KafkaCluster kafka, String isolationLevel) {
    Map<String, Object> config = new HashMap<>(kafka.clientConfig());
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return config;
  }

  /** Reads partition 0 from the start until {@code count} records arrived, then a little more. */
  private static List<String> consumeStrings(
      KafkaCluster kafka, String topic, int count, String isolationLevel) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            consumerConfig(kafka, isolationLevel),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.assign(List.of(new TopicPartition(topic, 0)));
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (values.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.key() + "=" + r.value()));
      }
      // One more poll, so that unexpected extra records would show up in the assertion.
      consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.key() + "=" + r.value()));
    }
    return values;
  }

  private static Matcher awaitLine(ChildProcess child, Pattern pattern, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (String line : Files.readAllLines(child.logFile())) {
        Matcher matcher = pattern.matcher(line);
        if (matcher.matches()) {
          return matcher;
        }
      }
      assertThat(child.isAlive())
          .as("%s alive; its log ends with:%n%s", child, child.logTail(30))
          .isTrue();
      Thread.sleep(100);
    }
    throw new AssertionError(
        "no line matching " + pattern + " in " + child.logFile() + ":\n" + child.logTail(30));
  }

  /** Linux: alive unless gone from /proc or a zombie (an orphan may wait for its reaper). */
  private static boolean isRunning(long pid) throws Exception {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    if (!Files.exists(stat)) {
      return false;
    }
    String content;
    try {
      content = Files.readString(stat);
    } catch (NoSuchFileException e) {
      return false;
    }
    char state = content.charAt(content.lastIndexOf(')') + 2);
    return state != 'Z' && state != 'X';
  }
}
