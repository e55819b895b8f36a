package io.prefixlog.archive;

import io.prefixlog.schemas.Topics;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One output topic archived by its own sink connector into its own Iceberg table.
 *
 * @param connector the connector's name (also its consumer group, {@code connect-<name>})
 * @param topic the Kafka topic read
 * @param table the Iceberg table written, {@code namespace.name}
 * @param controlTopic the sink's coordination topic (one partition), one per connector so that
 *     commits of different tables never share a topic
 */
public record ArchivedTopic(String connector, String topic, String table, String controlTopic) {
  /** The namespace of every prefixlog table in the catalog. */
  public static final String NAMESPACE = "prefixlog";

  /**
   * The column the connector configuration adds to every table: the Kafka record timestamp, the day
   * partition source.
   */
  public static final String KAFKA_TS = "kafka_ts";

  private static final Pattern TABLE = Pattern.compile("[a-z0-9_]+\\.[a-z0-9_]+");

  public ArchivedTopic {
    Objects.requireNonNull(connector, "connector");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(controlTopic, "controlTopic");
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "table must be namespace.name in lower case but was '" + table + "'");
    }
  }

  /**
   * The four archived topics for a topic prefix: session deltas, chunk lookups and KV event batches
   * (docs/design.md#archive), and the request metadata records (every request's metadata, whether
   * or not its body was sampled), as tables {@code prefixlog.session_deltas}, {@code
   * prefixlog.chunk_lookups}, {@code prefixlog.kv_events} and {@code prefixlog.requests_metadata}.
   * New entries go at the end: {@link #deltas} is the first.
   */
  public static List<ArchivedTopic> all(String topicPrefix) {
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Topics topics = Topics.withPrefix(topicPrefix);
    return List.of(
        of("deltas", topicPrefix, topics.sessionDeltas().name(), "session_deltas"),
        of("lookups", topicPrefix, topics.chunkLookups().name(), "chunk_lookups"),
        of("kv-events", topicPrefix, topics.kvEvents().name(), "kv_events"),
        of("requests", topicPrefix, topics.requestsMetadata().name(), "requests_metadata"));
  }

  /** The archived deltas topic, the one bodies are rebuilt from. */
  public static ArchivedTopic deltas(String topicPrefix) {
    return all(topicPrefix).get(0);
  }

  /**
   * {@code topic} is the full name, taken from {@link Topics} so that the archive reads the topics
   * the stream app writes; the control topic is the archive's own.
   */
  private static ArchivedTopic of(String id, String prefix, String topic, String table) {
    return new ArchivedTopic(
        "prefixlog-archive-" + id,
        topic,
        NAMESPACE + "." + table,
        prefix + "archive.control." + id);
  }
}
