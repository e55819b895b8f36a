package io.prefixlog.tools.erase;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.schemas.control.ControlHeaders;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Whether the archive's sink has committed to Iceberg every record of the erased sessions that the
 * archived topics held when the erasure took their end offsets, so that deleting the rows from the
 * tables afterwards leaves none behind. The sink drops tombstones, so an erasure cannot reach rows
 * it has not written yet: rows of records in its lag would land after the deletes.
 *
 * <p>How the Iceberg sink (1.12) commits, which is what the two steps rely on: each task writes
 * data files as it reads, and at every commit interval its coordinator asks for them; a task
 * answers on the connector's control topic with the files, in one Kafka transaction with the
 * offsets it has read up to, committed to the connector's consumer group {@code
 * connect-<connector>}. The coordinator then commits the files of every answer it has consumed to
 * the table, and only after that commits its own control-topic offsets to the group {@code
 * connect-<connector>-coord}.
 *
 * <ol>
 *   <li><b>Read.</b> For every partition of an archived topic, the sink's group has committed past
 *       the last record below the erasure's end offset that names a selected session (a record the
 *       sink drops, a tombstone or an order with the {@code prefixlog-control} header, does not
 *       count: the group's offset never passes one that ends a partition). The records between the
 *       group's offset and the end are read to find that last one, again every {@link #RESCAN}
 *       while the sink is behind (the broker may compact records away meanwhile).
 *   <li><b>Committed.</b> Then the coordinator's group has committed the control topic up to its
 *       end offset as of the moment step 1 held: the answer with those records' files lies below
 *       that end, so the coordinator has consumed it and committed the files to the table since.
 *       This takes one or two commit intervals, whatever was in the lag.
 * </ol>
 *
 * <p>A sink that runs other group ids ({@code iceberg.connect.group-id}) or another connector
 * version is not recognised: the wait then times out and says which group it found no offsets of.
 */
final class SinkCatchUp {
  /** How often the sink's lag is read again while it stays behind. */
  static final Duration RESCAN = Duration.ofSeconds(30);

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofSeconds(1);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

  /** Where one archived topic's sink stands. */
  private static final class Sink {
    final ArchivedTopic topic;
    final Map<TopicPartition, Long> ends;

    /** The last offset below the end naming a session, as of the last scan; -1: none. */
    final Map<TopicPartition, Long> lastNaming = new HashMap<>();

    final Map<TopicPartition, Long> namingLeft = new HashMap<>();
    long lastScanNanos;

    Sink(ArchivedTopic topic, Map<TopicPartition, Long> ends) {
      this.topic = topic;
      this.ends = ends;
    }

    String group() {
      return "connect-" + topic.connector();
    }

    String coordinatorGroup() {
      return group() + "-coord";
    }
  }

  /**
   * The outcome.
   *
   * @param caughtUp true when both steps held for every sink
   * @param behind one line per sink that did not, saying what it waits for
   */
  record Outcome(boolean caughtUp, List<String> behind) {
    Outcome {
      behind = List.copyOf(behind);
    }
  }

  private final Admin admin;
  private final String bootstrap;
  private final SessionMatch match;
  private final List<Sink> sinks;

  private SinkCatchUp(Admin admin, String bootstrap, SessionMatch match, List<Sink> sinks) {
    this.admin = admin;
    this.bootstrap = bootstrap;
    this.match = match;
    this.sinks = sinks;
  }

  /**
   * Takes the archived topics' end offsets now (committed records only), for each topic that has a
   * sink.
   */
  static SinkCatchUp from(
      Admin admin, String bootstrap, List<ArchivedTopic> topics, Selection selection)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<Sink> sinks = new ArrayList<>();
    Set<String> names = admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    for (ArchivedTopic topic : topics) {
      // A sink exists where its control topic does (the deployment creates it before Connect
      // starts); a topic without one is not archived, and nothing of it is on its way.
      if (names.contains(topic.topic()) && names.contains(topic.controlTopic())) {
        sinks.add(new Sink(topic, endOffsets(admin, topic.topic())));
      }
    }
    return new SinkCatchUp(admin, bootstrap, new SessionMatch(selection), sinks);
  }

  /**
   * Waits until the sink has committed every record of the sessions below the end offsets taken, or
   * {@code timeout} passes.
   *
   * @param waitForReads false: when the sink has not read them all at the first look, return at
   *     once ({@code erase --check}); the commit that follows is still waited for
   * @param progress a line every few seconds while waiting
   */
  Outcome await(Duration timeout, boolean waitForReads, Consumer<String> progress)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    Wait wait = new Wait(timeout, progress);
    while (true) {
      List<String> behind = new ArrayList<>();
      for (Sink sink : sinks) {
        String why = unread(sink);
        if (why != null) {
          behind.add(why);
        }
      }
      if (behind.isEmpty()) {
        break;
      }
      if (!waitForReads || !wait.another(behind)) {
        return new Outcome(false, behind);
      }
    }

    Map<Sink, Map<TopicPartition, Long>> controlEnds = new LinkedHashMap<>();
    for (Sink sink : sinks) {
      controlEnds.put(sink, endOffsets(admin, sink.topic.controlTopic()));
    }
    while (true) {
      List<String> behind = new ArrayList<>();
      for (Map.Entry<Sink, Map<TopicPartition, Long>> e : controlEnds.entrySet()) {
        String why = uncommitted(e.getKey(), e.getValue());
        if (why != null) {
          behind.add(why);
        }
      }
      if (behind.isEmpty()) {
        return new Outcome(true, List.of());
      }
      if (!wait.another(behind)) {
        return new Outcome(false, behind);
      }
    }
  }

  /**
   * The one deadline and progress rhythm of both steps: the commit step gets only what the read
   * step left of the timeout, and its first progress line comes when the next one was due.
   */
  private static final class Wait {
    private final Duration timeout;
    private final Consumer<String> progress;
    private final long start = System.nanoTime();
    private final long deadline;
    private long nextProgress;

    Wait(Duration timeout, Consumer<String> progress) {
      this.timeout = timeout;
      this.progress = progress;
      this.deadline = start + timeout.toNanos();
      this.nextProgress = start + PROGRESS_EVERY.toNanos();
    }

    /**
     * Sleeps one poll interval, first passing on the lines of what is awaited when a progress
     * report is due; false, without sleeping, once the deadline has passed.
     */
    boolean another(List<String> behind) throws InterruptedException {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      if (System.nanoTime() >= nextProgress) {
        behind.forEach(
            line ->
                progress.accept(
                    line + " (" + elapsed(start) + " of " + timeout.toSeconds() + " s)"));
        nextProgress = System.nanoTime() + PROGRESS_EVERY.toNanos();
      }
      Thread.sleep(POLL.toMillis());
      return true;
    }
  }

  /** Null when the sink's group has read every record of the sessions below the ends; else why. */
  private String unread(Sink sink)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, Long> committed = committed(sink.group());
    Map<TopicPartition, Long> from = new HashMap<>();
    for (Map.Entry<TopicPartition, Long> e : sink.ends.entrySet()) {
      TopicPartition tp = e.getKey();
      long at = committed.getOrDefault(tp, 0L);
      Long last = sink.lastNaming.get(tp);
      if (at >= e.getValue() || last != null && (last < 0 || at > last)) {
        continue; // nothing of theirs left to read, as of the last scan
      }
      from.put(tp, at);
    }
    if (from.isEmpty()) {
      return null;
    }
    boolean scanned = !sink.lastNaming.isEmpty();
    if (!scanned || System.nanoTime() - sink.lastScanNanos > RESCAN.toNanos()) {
      scan(sink, from);
      from.keySet().removeIf(tp -> sink.lastNaming.get(tp) < 0);
      if (from.isEmpty()) {
        return null;
      }
    }
    long left = 0;
    for (TopicPartition tp : from.keySet()) {
      left += sink.namingLeft.getOrDefault(tp, 0L);
    }
    return String.format(
        "sink behind: %s: %d record(s) of these sessions not yet read by the archive's sink"
            + " (consumer group %s%s)",
        sink.topic.topic(),
        left,
        sink.group(),
        committed.isEmpty() ? ", which has no offsets: is the archive's Connect running?" : "");
  }

  /** Null when the coordinator's group has committed the control topic up to {@code ends}. */
  private String uncommitted(Sink sink, Map<TopicPartition, Long> ends)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, Long> committed = committed(sink.coordinatorGroup());
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      if (committed.getOrDefault(e.getKey(), 0L) < e.getValue()) {
        return String.format(
            "sink behind: %s: the sink has read these sessions' records, its commit to %s is"
                + " pending (consumer group %s%s)",
            sink.topic.topic(),
            sink.topic.table(),
            sink.coordinatorGroup(),
            committed.isEmpty() ? ", which has no offsets: is the archive's Connect running?" : "");
      }
    }
    return null;
  }

  /**
   * Reads each partition from {@code from} to the end taken, and notes the last record that names a
   * session (or -1) and how many do.
   */
  private void scan(Sink sink, Map<TopicPartition, Long> from) throws IOException {
    Properties p = CommittedReads.config(bootstrap, "prefixlog-erase-sink-lag");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 20);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.assign(from.keySet());
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(from.keySet(), TIMEOUT);
      Set<TopicPartition> remaining = new HashSet<>();
      for (Map.Entry<TopicPartition, Long> e : from.entrySet()) {
        TopicPartition tp = e.getKey();
        consumer.seek(tp, Math.max(e.getValue(), begin.get(tp)));
        sink.lastNaming.put(tp, -1L);
        sink.namingLeft.put(tp, 0L);
        remaining.add(tp);
      }
      long lastMove = System.nanoTime();
      while (!remaining.isEmpty()) {
        boolean moved = false;
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          moved = true;
          if (r.offset() < sink.ends.get(tp) && names(r)) {
            sink.lastNaming.merge(tp, r.offset(), Math::max);
            sink.namingLeft.merge(tp, 1L, Long::sum);
          }
        }
        for (TopicPartition tp : List.copyOf(remaining)) {
          if (consumer.position(tp, TIMEOUT) >= sink.ends.get(tp)) {
            remaining.remove(tp);
            consumer.pause(List.of(tp));
            moved = true;
          }
        }
        if (moved) {
          lastMove = System.nanoTime();
        } else if (System.nanoTime() - lastMove > TIMEOUT.toNanos()) {
          throw new IOException(
              "reading the archive sink's lag on "
                  + sink.topic.topic()
                  + " made no progress for "
                  + TIMEOUT.toSeconds()
                  + " s");
        }
      }
    }
    sink.lastScanNanos = System.nanoTime();
  }

  /**
   * Whether the sink would archive a row of a selected session from this record: a value (the sink
   * drops tombstones), no {@code prefixlog-control} header (dropped too), and a key of the session
   * or a value naming one of its ids (KV batches).
   */
  private boolean names(ConsumerRecord<String, byte[]> record) {
    return record.headers().lastHeader(ControlHeaders.NAME) == null && match.names(record);
  }

  private Map<TopicPartition, Long> committed(String group)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetAndMetadata> offsets;
    try {
      offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
        return Map.of();
      }
      throw e;
    }
    Map<TopicPartition, Long> committed = new HashMap<>();
    offsets.forEach(
        (tp, o) -> {
          if (o != null) {
            committed.put(tp, o.offset());
          }
        });
    return committed;
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    int partitions =
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .get(topic)
            .partitions()
            .size();
    for (int i = 0; i < partitions; i++) {
      latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin
        .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
        .all()
        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  private static String elapsed(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000_000L + " s";
  }
}
