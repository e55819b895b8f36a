package io.prefixlog.tools.erase;

import io.prefixlog.archive.read.ParquetText;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Looks for marker strings wherever prefixlog keeps bytes: every record (key, value, headers) of
 * every topic on a broker, aborted transactions included; every file under a directory; every
 * object of a bucket directory, Parquet files decoded (their pages are zstd-compressed, so raw
 * bytes would hide the text). Markers are plain ASCII without quote or backslash, so that JSON
 * escaping cannot hide them either. Text is compared as ISO-8859-1, byte for byte.
 */
final class Residue {
  private Residue() {}

  /** Topic → markers found in it. */
  static Map<String, Set<String>> inTopics(String bootstrap, List<String> markers)
      throws Exception {
    Map<String, Set<String>> found = new TreeMap<>();
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    Set<String> topics;
    try (Admin client = Admin.create(admin)) {
      topics = client.listTopics().names().get();
    }
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    // Everything the log holds, aborted transactions' records too.
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 20);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      for (String topic : topics) {
        List<TopicPartition> partitions = TopicScan.assignAll(consumer, topic);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
          if (System.nanoTime() > deadline) {
            throw new AssertionError("could not read " + topic + " to its end");
          }
          for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
            StringBuilder text = new StringBuilder();
            text.append(latin1(record.key())).append('\n').append(latin1(record.value()));
            for (Header header : record.headers()) {
              text.append('\n').append(latin1(header.value()));
            }
            collect(found, topic, text.toString(), markers);
          }
        }
      }
    }
    return found;
  }

  /** File → markers found in its bytes. */
  static Map<String, Set<String>> inFiles(Path dir, List<String> markers) throws IOException {
    Map<String, Set<String>> found = new TreeMap<>();
    for (Path file : files(dir)) {
      collect(found, file.toString(), latin1(Files.readAllBytes(file)), markers);
    }
    return found;
  }

  /** Object → markers found in it (a Parquet file's decoded values, any other file's bytes). */
  static Map<String, Set<String>> inBucket(Path bucketDir, List<String> markers)
      throws IOException {
    Map<String, Set<String>> found = new TreeMap<>();
    for (Path file : files(bucketDir)) {
      String text =
          file.getFileName().toString().endsWith(".parquet")
              ? decodedParquet(file)
              : latin1(Files.readAllBytes(file));
      collect(found, file.toString(), text, markers);
    }
    return found;
  }

  /** The number of Parquet files under the directory. */
  static long parquetFiles(Path dir) throws IOException {
    return files(dir).stream().filter(f -> f.toString().endsWith(".parquet")).count();
  }

  private static String decodedParquet(Path file) throws IOException {
    return latin1(ParquetText.of(file));
  }

  private static List<Path> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> all = Files.walk(dir)) {
      return all.filter(Files::isRegularFile).toList();
    }
  }

  private static void collect(
      Map<String, Set<String>> found, String where, String text, List<String> markers) {
    for (String marker : markers) {
      if (text.contains(marker)) {
        found.computeIfAbsent(where, w -> new java.util.TreeSet<>()).add(marker);
      }
    }
  }

  private static String latin1(byte[] bytes) {
    return bytes == null ? "" : new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /**
   * Up to {@code count} 32-byte windows of {@code body} (at a stride spreading them over it) that
   * are printable ASCII without quote or backslash and occur in none of {@code others}.
   */
  static List<String> markers(byte[] body, List<byte[]> others, int count) {
    String text = latin1(body);
    List<String> otherTexts = others.stream().map(Residue::latin1).toList();
    List<String> markers = new ArrayList<>();
    int stride = Math.max(1, (text.length() - 32) / (count * 4));
    for (int i = 0; i + 32 <= text.length() && markers.size() < count; i += stride) {
      String window = text.substring(i, i + 32);
      if (!window.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\')) {
        continue;
      }
      if (otherTexts.stream().noneMatch(o -> o.contains(window))) {
        markers.add(window);
      }
    }
    return markers;
  }
}
