package io.prefixlog.bridge.kv;

import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads back, when the bridge starts, where each source's log in {@code kv.events} stands: the tail
 * of the partition its key goes to, in windows of {@value #WINDOW} records from the end backwards,
 * until every source of that partition is {@linkplain ResumeFold#settled settled} or the
 * partition's beginning is reached. {@code read_committed}, so that records of an aborted
 * transaction (should a transactional producer ever write the topic) are not taken for published
 * ones.
 *
 * <p>The partition of a source is the one Kafka's default partitioner gives its key (murmur2 of the
 * key bytes modulo the partition count), as the bridge's producer uses it: a custom partitioner or
 * a changed partition count would hide older records from this read.
 */
final class PublishedLog {
  private static final Logger LOGGER = LoggerFactory.getLogger(PublishedLog.class);
  static final int WINDOW = 1_000;
  private static final JsonSerde<KvEventBatch> BATCH = JsonSerde.of(KvEventBatch.class);

  private PublishedLog() {}

  /** The consumer settings: pass-through settings a consumer knows ({@code security.*}, …). */
  static Map<String, Object> consumerProperties(KvBridgeConfig config) {
    Map<String, Object> p = new HashMap<>();
    config
        .kafka()
        .forEach(
            (k, v) -> {
              if (ConsumerConfig.configNames().contains(k)) {
                p.put(k, v);
              }
            });
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "prefixlog-ingest-bridge-kv-resume");
    return p;
  }

  /**
   * Where each source stands, by source id; a source without a record is absent.
   *
   * @throws TimeoutException when the tail cannot be read within {@code timeout}
   */
  static Map<String, ResumePoint> read(
      Consumer<byte[], byte[]> consumer, String topic, List<KvSource> sources, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
    Map<String, ResumePoint> points = new HashMap<>();
    if (infos == null || infos.isEmpty()) {
      LOGGER
          .atWarn()
          .setMessage("no such topic: every source starts as seen for the first time")
          .addKeyValue("topic", topic)
          .log();
      return points;
    }
    Map<Integer, Map<String, ResumeFold>> byPartition = new HashMap<>();
    for (KvSource source : sources) {
      byte[] key = source.id().getBytes(StandardCharsets.UTF_8);
      int partition = Utils.toPositive(Utils.murmur2(key)) % infos.size();
      byPartition
          .computeIfAbsent(partition, p -> new HashMap<>())
          .put(source.id(), new ResumeFold());
    }
    for (Map.Entry<Integer, Map<String, ResumeFold>> entry : byPartition.entrySet()) {
      TopicPartition tp = new TopicPartition(topic, entry.getKey());
      readBack(consumer, tp, entry.getValue(), deadline);
      entry
          .getValue()
          .forEach(
              (id, fold) -> {
                ResumePoint point = fold.result();
                if (point != null) {
                  points.put(id, point);
                }
              });
    }
    return points;
  }

  private static void readBack(
      Consumer<byte[], byte[]> consumer,
      TopicPartition tp,
      Map<String, ResumeFold> folds,
      long deadline) {
    Duration left = remaining(deadline);
    long begin = consumer.beginningOffsets(List.of(tp), left).get(tp);
    long end = consumer.endOffsets(List.of(tp), remaining(deadline)).get(tp);
    consumer.assign(List.of(tp));
    for (long hi = end; hi > begin && !allSettled(folds); ) {
      long lo = Math.max(begin, hi - WINDOW);
      Map<String, List<KvEventBatch>> window = new HashMap<>();
      consumer.seek(tp, lo);
      while (consumer.position(tp, remaining(deadline)) < hi) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.offset() >= hi || record.key() == null || record.value() == null) {
            continue;
          }
          String key = new String(record.key(), StandardCharsets.UTF_8);
          if (folds.containsKey(key)) {
            KvEventBatch batch = parse(tp, record);
            if (batch != null) {
              window.computeIfAbsent(key, k -> new ArrayList<>()).add(batch);
            }
          }
        }
        remaining(deadline);
      }
      window.forEach(
          (key, records) -> {
            ResumeFold fold = folds.get(key);
            for (int i = records.size() - 1; i >= 0; i--) {
              fold.older(records.get(i));
            }
          });
      hi = lo;
    }
  }

  private static KvEventBatch parse(TopicPartition tp, ConsumerRecord<byte[], byte[]> record) {
    try {
      return BATCH.fromBytes(record.value());
    } catch (RuntimeException e) {
      // Not one of ours (the bridge writes only valid records): it says nothing about the source.
      LOGGER
          .atWarn()
          .setMessage("a kv.events record that does not parse is skipped while resuming")
          .addKeyValue("topic", tp.topic())
          .addKeyValue("partition", tp.partition())
          .addKeyValue("offset", record.offset())
          .addKeyValue("error", e.toString())
          .log();
      return null;
    }
  }

  private static boolean allSettled(Map<String, ResumeFold> folds) {
    return folds.values().stream().allMatch(ResumeFold::settled);
  }

  private static Duration remaining(long deadline) {
    long nanos = deadline - System.nanoTime();
    if (nanos <= 0) {
      throw new TimeoutException("reading the tail of kv.events took too long");
    }
    return Duration.ofNanos(nanos);
  }

  /** Opens a consumer with {@link #consumerProperties} and reads. */
  static Map<String, ResumePoint> read(KvBridgeConfig config, List<KvSource> sources) {
    Objects.requireNonNull(config, "config");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(config))) {
      return read(consumer, config.topics().kvEvents().name(), sources, config.resumeTimeout());
    }
  }
}
