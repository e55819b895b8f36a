package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer whose clock runs ahead, against the real topology on a fixed clock: stream time moves
 * at most {@code PREFIXLOG_MAX_CLOCK_SKEW} past it, so the other sessions of the task keep their
 * bases, chains and request ids.
 */
class ClockSkewTopologyTest {
  private static final long NOW = Instant.parse("2026-11-28T12:00:00Z").toEpochMilli();
  private static final long SKEW = Duration.ofMinutes(5).toMillis();
  private static final int SESSIONS = 6;
  private static final String SYSTEM = "You are a careful assistant. ".repeat(60);

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private SimpleMeterRegistry registry;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, DeltaRecord> deltas;

  private void start() {
    StreamAppConfig config =
        StreamAppConfig.defaults(Map.of("PREFIXLOG_STATE_DIR", stateDir.toString()));
    registry = new SimpleMeterRegistry();
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry), () -> NOW),
            StreamApp.streamsProperties(config));
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
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldKeepEveryOtherSessionsBasesChainAndRequestIdsWhenAProducerIsEightDaysAhead() {
    // Given: six sessions with two turns each, captured ten minutes ago
    start();
    long t0 = NOW - Duration.ofMinutes(10).toMillis();
    List<String> sessions = new ArrayList<>();
    for (int s = 0; s < SESSIONS; s++) {
      sessions.add(String.format("%032x", s + 1));
    }
    for (int turn = 1; turn <= 2; turn++) {
      for (int s = 0; s < SESSIONS; s++) {
        send(sessions.get(s), turn, t0 + turn * 1000L + s);
      }
    }

    // When: a producer eight days ahead writes a turn of its own session; then every session's
    // next turn, and a resend of its first (a spill resend of a send that had landed)
    String ahead = String.format("%032x", 99);
    long eightDaysAhead = NOW + Duration.ofDays(8).toMillis();
    send(ahead, 1, eightDaysAhead);
    for (int s = 0; s < SESSIONS; s++) {
      send(sessions.get(s), 3, t0 + 3000L + s);
      send(sessions.get(s), 1, t0 + 1000L + s);
    }

    // Then: every session's turn 3 is a delta against turn 2 in its first chain; no new chain, no
    // turn twice; the record ahead was processed at the bound, its ts kept
    List<TestRecord<String, DeltaRecord>> out = deltas.readRecordsToList();
    assertThat(out).hasSize(3 * SESSIONS + 1);
    for (String session : sessions) {
      List<DeltaRecord> turns =
          out.stream().map(TestRecord::value).filter(d -> d.sessionKey().equals(session)).toList();
      assertThat(turns).extracting(DeltaRecord::seq).containsExactly(1L, 2L, 3L);
      assertThat(turns).extracting(DeltaRecord::chain).containsOnly(turns.get(0).chain());
      assertThat(turns.get(2).kind()).isEqualTo(DeltaRecord.KIND_DELTA);
      assertThat(turns.get(2).baseSeq()).isEqualTo(2L);
    }
    assertThat(Meters.count(registry, "prefixlog_chains_started_total", "cause", "new"))
        .isEqualTo(SESSIONS + 1);
    assertThat(Meters.count(registry, "prefixlog_chains_started_total", "cause", "idle")).isZero();
    assertThat(Meters.count(registry, "prefixlog_sessions_evicted_total")).isZero();
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(SESSIONS);
    assertThat(
            Meters.count(
                registry, "prefixlog_record_time_clamped_total", "topic", "prefixlog.requests.raw"))
        .isEqualTo(1);
    TestRecord<String, DeltaRecord> aheadRecord =
        out.stream().filter(r -> r.value().sessionKey().equals(ahead)).findFirst().orElseThrow();
    assertThat(aheadRecord.timestamp()).isEqualTo(NOW + SKEW);
    assertThat(aheadRecord.value().ts()).isEqualTo(eightDaysAhead);
  }

  private void send(String session, int turn, long timestamp) {
    byte[] body = body(session, turn);
    raw.pipeInput(
        session,
        RawEvents.bytes(RawEvents.of(session, session + "#" + turn, timestamp, body)),
        timestamp);
  }

  /** A chat whose turns repeat a long system prompt and every earlier message. */
  private static byte[] body(String session, int turns) {
    StringBuilder messages = new StringBuilder();
    messages.append("{\"role\":\"system\",\"content\":\"").append(SYSTEM).append("\"}");
    for (int t = 1; t <= turns; t++) {
      messages
          .append(",{\"role\":\"user\",\"content\":\"question ")
          .append(t)
          .append(" of ")
          .append(session)
          .append("\"}");
    }
    return ("{\"model\":\"m\",\"messages\":[" + messages + "]}").getBytes(StandardCharsets.UTF_8);
  }
}
