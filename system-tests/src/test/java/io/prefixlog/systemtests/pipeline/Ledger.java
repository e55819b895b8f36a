package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The fault-injection suite's account of one scenario, read back from the broker: what went into
 * the raw topic, what the compacted deltas topic holds (the newest record per key, as compaction
 * keeps it), whether every body rebuilds from it, and the dead letters by reason. It prints the one
 * line per scenario the issue asks for, and {@link #assertLossless} is the promise: every distinct
 * request stored exactly once and rebuilt byte for byte.
 *
 * <p>A distinct request is one capture: its session, request id, capture time and body digest
 * ({@link #captureOf}). A resend of a capture repeats all four; a client's retry is a capture of
 * its own (a later {@code ts}, and from the capture proxy its own request id), and so is a request
 * under an id the client used before for another body.
 */
final class Ledger {
  private static final JsonSerde<RawRequestEvent> RAW = JsonSerde.of(RawRequestEvent.class);
  private static final JsonSerde<DeltaRecord> DELTA = JsonSerde.of(DeltaRecord.class);
  private static final JsonSerde<DeadLetter> LETTER = JsonSerde.of(DeadLetter.class);

  final String scenario;
  final long eventsIn;
  final long distinctRequests;
  final long deltas;
  final long rebuilt;
  final long mismatches;
  final long duplicates;
  final long missing;
  final long keyframes;
  final Map<String, Long> deadLetters;
  final Map<String, Long> keyframeReasons;
  final List<String> problems;

  /** The newest value under each key of the deltas topic (null: a tombstone). */
  final Map<String, byte[]> newest;

  private Ledger(
      String scenario,
      long eventsIn,
      long distinctRequests,
      long deltas,
      long rebuilt,
      long mismatches,
      long duplicates,
      long missing,
      long keyframes,
      Map<String, Long> deadLetters,
      Map<String, Long> keyframeReasons,
      List<String> problems,
      Map<String, byte[]> newest) {
    this.scenario = scenario;
    this.eventsIn = eventsIn;
    this.distinctRequests = distinctRequests;
    this.deltas = deltas;
    this.rebuilt = rebuilt;
    this.mismatches = mismatches;
    this.duplicates = duplicates;
    this.missing = missing;
    this.keyframes = keyframes;
    this.deadLetters = deadLetters;
    this.keyframeReasons = keyframeReasons;
    this.problems = problems;
    this.newest = newest;
  }

  /**
   * Waits until the deltas topic holds a record for each of the {@code expectedRequests} distinct
   * requests (or {@code timeout} passes), then takes the account.
   *
   * @param expectedRequests distinct valid requests (captures, {@link #captureOf}) that must be
   *     stored
   */
  static Ledger take(
      String scenario, KafkaCluster kafka, String prefix, long expectedRequests, Duration timeout)
      throws InterruptedException {
    String bootstrap = kafka.bootstrapServers();
    long deadline = System.nanoTime() + timeout.toNanos();
    List<ConsumerRecord<String, byte[]>> deltaRecords;
    while (true) {
      deltaRecords = Topics.readAtLeast(bootstrap, prefix + "session.deltas", 0, timeout);
      if (compacted(deltaRecords).size() >= expectedRequests || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(500);
    }
    // Late duplicates would show up after the expected count: give them a moment.
    Thread.sleep(2000);
    deltaRecords = Topics.readAtLeast(bootstrap, prefix + "session.deltas", 0, timeout);
    // Erase orders travel on the raw topic too; they are not requests.
    List<ConsumerRecord<String, byte[]>> raw =
        Topics.readAtLeast(bootstrap, prefix + "requests.raw", 0, timeout).stream()
            .filter(r -> !ControlHeaders.isErase(r.headers()))
            .toList();
    List<ConsumerRecord<String, byte[]>> letters =
        Topics.readAtLeast(bootstrap, prefix + "dlq", 0, timeout);

    Map<String, String> rawBodyById = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : raw) {
      try {
        RawRequestEvent event = RawEventFrame.readAsVersion1(r.value());
        rawBodyById.putIfAbsent(
            captureOf(event.sessionKey(), event.requestId(), event.ts(), event.bodySha256()),
            event.bodySha256());
      } catch (RuntimeException e) {
        // a malformed record: it must be a dead letter, counted below
      }
    }
    Map<String, byte[]> newest = compacted(deltaRecords);
    Map<String, Long> storedPerRequest = new HashMap<>();
    Map<String, String> requestOfTurn = new HashMap<>();
    Map<String, Long> keyframeReasons = new TreeMap<>();
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    newest.forEach(
        (key, value) -> {
          rebuilder.addTopicRecord(key, value, key);
          if (value != null) {
            DeltaRecord d = DELTA.fromBytes(value);
            String id = captureOf(d.sessionKey(), d.requestId(), d.ts(), d.bodySha256());
            storedPerRequest.merge(id, 1L, Long::sum);
            requestOfTurn.put(key, id);
            if (d.isKeyframe()) {
              keyframeReasons.merge(d.keyframeReason(), 1L, Long::sum);
            }
          }
        });
    long[] rebuiltMatching = {0};
    RebuildReport report =
        rebuilder.run(
            new RebuildListener() {
              @Override
              public void onVerifiedBody(String chainKey, long seq, byte[] body) {
                String id = requestOfTurn.get(chainKey + "/" + seq);
                if (Sha256.hex(body).equals(rawBodyById.get(id))) {
                  rebuiltMatching[0]++;
                }
              }
            });
    Map<String, Long> reasons = new TreeMap<>();
    for (ConsumerRecord<String, byte[]> r : letters) {
      reasons.merge(LETTER.fromBytes(r.value()).reason(), 1L, Long::sum);
    }
    long duplicates = storedPerRequest.values().stream().mapToLong(n -> n - 1).sum();
    long missing =
        rawBodyById.keySet().stream().filter(id -> !storedPerRequest.containsKey(id)).count();
    return new Ledger(
        scenario,
        raw.size(),
        rawBodyById.size(),
        newest.values().stream().filter(v -> v != null).count(),
        rebuiltMatching[0],
        report.counts().failures(false),
        duplicates,
        missing,
        keyframeReasons.values().stream().mapToLong(Long::longValue).sum(),
        reasons,
        keyframeReasons,
        report.problems().stream().map(Object::toString).toList(),
        newest);
  }

  /** What identifies one capture in the raw events and in the deltas alike. */
  private static String captureOf(String session, String requestId, Long ts, String bodySha256) {
    return session + "|" + requestId + "|" + ts + "|" + bodySha256;
  }

  /** The newest value under each key of the deltas topic, in first-seen key order. */
  private static Map<String, byte[]> compacted(List<ConsumerRecord<String, byte[]>> records) {
    Map<String, byte[]> newest = new LinkedHashMap<>();
    for (ConsumerRecord<String, byte[]> r : records) {
      newest.put(r.key(), r.value());
    }
    return newest;
  }

  /** Prints the scenario's line (the suite's report) to stderr, where surefire keeps it. */
  Ledger print() {
    System.err.printf(
        "fault scenario %-44s events in %5d, distinct requests %5d, deltas %5d, rebuilt %5d,"
            + " mismatches %d, duplicates %d, missing %d, keyframes %s, dead letters %s%n",
        scenario,
        eventsIn,
        distinctRequests,
        deltas,
        rebuilt,
        mismatches,
        duplicates,
        missing,
        keyframeReasons,
        deadLetters);
    return this;
  }

  /**
   * Every distinct request stored exactly once and rebuilt byte for byte: {@code expected}
   * requests, each with one delta, no mismatch, nothing missing.
   */
  Ledger assertLossless(long expected) {
    assertThat(problems).as(scenario).isEmpty();
    assertThat(distinctRequests).as(scenario + ": distinct requests").isEqualTo(expected);
    assertThat(missing).as(scenario + ": requests without a delta").isZero();
    assertThat(duplicates).as(scenario + ": requests stored twice").isZero();
    assertThat(mismatches).as(scenario + ": rebuild failures").isZero();
    assertThat(deltas).as(scenario + ": deltas").isEqualTo(expected);
    assertThat(rebuilt).as(scenario + ": bodies rebuilt equal to the capture").isEqualTo(expected);
    return this;
  }
}
