package io.prefixlog.tools.erase;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.topic.KafkaClients;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Removes the erased sessions' dead letters from {@code dlq}. A letter keeps its input's bytes, a
 * captured body included. The topic is delete-policy, and its records are keyed by their input's
 * key (the session key, for a raw request), so one session has several letters under one key: a
 * tombstone could neither remove them (no compaction) nor, if the topic compacted, spare the other
 * letters under the same key. What a delete-policy topic can do is drop a prefix of a partition.
 *
 * <p>So, per partition: read it to its end (committed records); a letter is the sessions' when its
 * record key names one of them or its input's key or value holds one of their session keys. When a
 * partition holds one, every other letter before the last of them is first written again at the
 * partition's end — same key, value, headers and timestamp (the retention of those letters does not
 * change), plus a header {@value #MOVED_FROM} naming where it was — and then the partition is
 * deleted up to just after the last of the sessions' letters. Nothing of anyone else is lost: a
 * reader that had not reached them reads them at their new place (a reader that had, reads them
 * again, marked). A letter whose copy is already at or after the cut (an erasure that stopped
 * between the two steps) is not copied twice. A letter written after the read is never touched.
 */
final class DeadLetterErasure {
  /** The header on a letter written again: {@code <partition>:<offset>} of its first place. */
  static final String MOVED_FROM = "prefixlog-moved-from";

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What one erasure did on the topic. */
  record Result(String topic, long erased, long moved, int partitions) {}

  private DeadLetterErasure() {}

  /** Erases the sessions' dead letters from {@code topic}; a missing topic holds none. */
  static Result erase(Admin admin, String bootstrap, String topic, Selection selection)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    List<byte[]> keys = new ArrayList<>();
    for (String key : selection.keys()) {
      keys.add(key.getBytes(StandardCharsets.UTF_8));
    }
    long erased = 0;
    long moved = 0;
    int partitions = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(bootstrap));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
      var infos = consumer.partitionsFor(topic, TIMEOUT);
      if (infos == null || infos.isEmpty()) {
        return new Result(topic, 0, 0, 0);
      }
      for (var info : infos) {
        TopicPartition tp = new TopicPartition(topic, info.partition());
        // First pass: where the sessions' last letter is, and which letters were copied before.
        long[] cut = {-1};
        long[] theirs = {0};
        Map<String, Long> copies = new HashMap<>();
        long end =
            forEach(
                consumer,
                tp,
                Long.MAX_VALUE,
                r -> {
                  if (isTheirs(r, selection, keys)) {
                    cut[0] = r.offset() + 1;
                    theirs[0]++;
                  }
                  Header from = r.headers().lastHeader(MOVED_FROM);
                  if (from != null) {
                    copies.merge(
                        new String(from.value(), StandardCharsets.UTF_8), r.offset(), Math::max);
                  }
                });
        if (cut[0] < 0) {
          continue;
        }
        Set<String> copiedAlready = new HashSet<>();
        copies.forEach(
            (origin, offset) -> {
              if (offset >= cut[0]) {
                copiedAlready.add(origin);
              }
            });
        // Second pass: every other letter before the cut, written again at the end.
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        forEach(
            consumer,
            tp,
            Math.min(end, cut[0]),
            r -> {
              if (r.value() == null || isTheirs(r, selection, keys)) {
                return;
              }
              Header previous = r.headers().lastHeader(MOVED_FROM);
              String origin =
                  previous != null
                      ? new String(previous.value(), StandardCharsets.UTF_8)
                      : r.partition() + ":" + r.offset();
              if (!copiedAlready.add(origin)) {
                return;
              }
              RecordHeaders headers = new RecordHeaders();
              for (Header h : r.headers()) {
                if (!h.key().equals(MOVED_FROM)) {
                  headers.add(h);
                }
              }
              headers.add(MOVED_FROM, origin.getBytes(StandardCharsets.UTF_8));
              sends.add(
                  producer.send(
                      new ProducerRecord<>(
                          topic, tp.partition(), r.timestamp(), r.key(), r.value(), headers)));
            });
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
          send.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS); // every copy stored before the cut
        }
        admin
            .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(cut[0])))
            .all()
            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        erased += theirs[0];
        moved += sends.size();
        partitions++;
      }
    }
    return new Result(topic, erased, moved, partitions);
  }

  /**
   * A letter of the sessions: its record key is one of their keys ({@code session_key} or {@code
   * session_key/…}), or its input's key or value holds one of their session keys (32 hex digits,
   * which nothing else contains by chance).
   */
  static boolean isTheirs(ConsumerRecord<byte[], byte[]> r, Selection selection, List<byte[]> keys)
      throws IOException {
    if (r.value() == null) {
      return false;
    }
    if (r.key() != null
        && selection.sessionOf(new String(r.key(), StandardCharsets.UTF_8)) != null) {
      return true;
    }
    JsonNode letter;
    try {
      letter = Json.mapper().readTree(r.value());
    } catch (IOException e) {
      return false; // not a dead letter this build writes: its record key decided
    }
    for (String field : List.of("original_key", "original_value")) {
      JsonNode encoded = letter == null ? null : letter.get(field);
      if (encoded == null || !encoded.isTextual()) {
        continue;
      }
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(encoded.asText());
      } catch (IllegalArgumentException e) {
        continue;
      }
      for (byte[] key : keys) {
        if (Bytes.contains(bytes, key)) {
          return true;
        }
      }
    }
    return false;
  }

  private interface LetterHandler {
    void accept(ConsumerRecord<byte[], byte[]> record) throws IOException;
  }

  /**
   * Hands over each committed record of the partition from its start up to {@code upTo} (at most
   * its end as of now); returns that end.
   */
  private static long forEach(
      KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long upTo, LetterHandler handler)
      throws IOException {
    consumer.assign(List.of(tp));
    long end = Math.min(upTo, consumer.endOffsets(List.of(tp), TIMEOUT).get(tp));
    consumer.seekToBeginning(List.of(tp));
    long lastMove = System.nanoTime();
    long last = -1;
    long position;
    while ((position = consumer.position(tp, TIMEOUT)) < end) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
        if (r.offset() < end) {
          handler.accept(r);
        }
      }
      if (position != last) {
        last = position;
        lastMove = System.nanoTime();
      } else if (System.nanoTime() - lastMove > TIMEOUT.toNanos()) {
        throw new IOException(
            "reading " + tp + " made no progress for " + TIMEOUT.toSeconds() + " s");
      }
    }
    return end;
  }

  private static Properties consumerConfig(String bootstrap) {
    Properties p = KafkaClients.committedReader(bootstrap, "prefixlog-erase-dlq");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 20);
    // A deployment without a dlq topic has no letters: asking for it must not create it.
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    return p;
  }

  private static Properties producerConfig(String bootstrap) {
    Properties p = KafkaClients.idempotentWriter(bootstrap, "prefixlog-erase-dlq");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 64 << 20);
    return p;
  }
}
