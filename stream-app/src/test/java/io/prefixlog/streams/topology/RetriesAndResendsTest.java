package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.session.SessionStores;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retries, resends and reused ids: every capture is stored once, whatever id its client sent, and
 * only an exact resend of a capture is dropped. A capture is known by its {@code capture_id}, or
 * without one by its {@code request_id} and {@code ts}; while a member of a build that dedups by
 * request id alone may run ({@code PREFIXLOG_UPGRADE_FROM} 1 or 2), the entry it looks up is
 * written too. The request metadata that links the attempts names their tenant, whether or not a
 * body was kept, in the versions a mixed group reads.
 */
class RetriesAndResendsTest {
  private static final String SESSION = "0123456789abcdef0123456789abcdef";
  private static final String OTHER_SESSION = "fedcba9876543210fedcba9876543210";
  private static final long T0 = Instant.parse("2026-11-24T12:00:00Z").toEpochMilli();

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> raw;
  private TestOutputTopic<String, DeltaRecord> deltas;
  private TestOutputTopic<String, RequestMetadata> metadata;
  private TestOutputTopic<byte[], DeadLetter> deadLetters;
  private MeterRegistry registry;

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldStoreEveryAttemptOfAGatewayRetryAndDropOnlyExactResends() {
    // Given
    start(Map.of());
    RawRequestEvent overloaded = RawEvents.captured(SESSION, "c-1", "gw-7", T0, chat(1), 503);
    RawRequestEvent answered = RawEvents.captured(SESSION, "c-2", "gw-7", T0 + 900, chat(1), 200);

    // When: the 503 attempt, the retry the engine answered, then a resend of each
    pipe(overloaded);
    pipe(answered);
    pipe(overloaded);
    pipe(answered);

    // Then: two turns, two duplicates dropped, no dead letter; the metadata links the attempts by
    // the client's id, and the last one is the engine's answer with its usage
    assertThat(deltas.readValuesToList())
        .extracting(DeltaRecord::requestId, d -> d.response().status())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("c-1", 503),
            org.assertj.core.groups.Tuple.tuple("c-2", 200));
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(2);
    assertThat(deadLetters.isEmpty()).isTrue();
    List<RequestMetadata> records = metadata.readValuesToList();
    assertThat(records)
        .extracting(
            RequestMetadata::schemaVersion,
            RequestMetadata::requestId,
            RequestMetadata::clientRequestId,
            m -> m.response().status())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(3, "c-1", "gw-7", 503),
            org.assertj.core.groups.Tuple.tuple(3, "c-2", "gw-7", 200));
    assertThat(records.get(1).response().usage().promptTokens()).isEqualTo(42L);
  }

  @Test
  void probeQueryStringKeysAProducerWroteAreNeverStored() {
    // Given: an event written to requests.raw by a producer that is not the bridge (kcat), with
    // keys in its path
    start(Map.of());
    RawRequestEvent event =
        RawEvents.of(SESSION, "kcat-1", T0, chat(1))
            .withPath(
                "/v1/chat/completions?api-version=1&api-key=SECRET-1&X-Amz-Signature=SECRET-2");

    // When
    pipe(event);

    // Then: the turn and its metadata keep the path without them, and the removals are counted
    DeltaRecord turn = deltas.readValuesToList().get(0);
    assertThat(turn.path()).isEqualTo("/v1/chat/completions?api-version=1");
    assertThat(turn.requestId()).isEqualTo("kcat-1");
    assertThat(metadata.readValuesToList())
        .extracting(RequestMetadata::path)
        .containsExactly("/v1/chat/completions?api-version=1");
    assertThat(Meters.count(registry, "prefixlog_query_credentials_removed_total")).isEqualTo(2);
    assertThat(deadLetters.isEmpty()).isTrue();
  }

  @Test
  void shouldStoreTwoRequestsUnderOneReusedClientIdAsTwoTurns() {
    // Given
    start(Map.of());

    // When: one client id for two different requests, seconds apart, and a resend of the first
    pipe(RawEvents.captured(SESSION, "c-1", "reused", T0, chat(1), 200));
    pipe(RawEvents.captured(SESSION, "c-2", "reused", T0 + 3000, chat(2), 200));
    pipe(RawEvents.captured(SESSION, "c-1", "reused", T0, chat(1), 200));

    // Then
    assertThat(deltas.readValuesToList()).extracting(DeltaRecord::seq).containsExactly(1L, 2L);
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(1);
    assertThat(deadLetters.isEmpty()).isTrue();
  }

  @Test
  void shouldKnowAnEventWithoutACaptureIdByItsRequestIdAndCaptureTime() {
    // Given: a producer that knows no capture id (a middleware, kcat, an earlier bridge)
    start(Map.of());

    // When: a request; its retry (captured again, a second later); a resend of the first; another
    // body under the same id; a resend of that
    pipe(RawEvents.of(SESSION, "client-1", T0, chat(1)));
    pipe(RawEvents.of(SESSION, "client-1", T0 + 1000, chat(1)));
    pipe(RawEvents.of(SESSION, "client-1", T0, chat(1)));
    pipe(RawEvents.of(SESSION, "client-1", T0 + 2000, chat(2)));
    pipe(RawEvents.of(SESSION, "client-1", T0 + 2000, chat(2)));

    // Then: three captures, three turns; the two resends dropped
    assertThat(deltas.readValuesToList())
        .extracting(DeltaRecord::ts)
        .containsExactly(T0, T0 + 1000, T0 + 2000);
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(2);
    assertThat(deadLetters.isEmpty()).isTrue();
    assertThat(dedupKeys())
        .containsExactly(
            SESSION + "/client-1@" + T0,
            SESSION + "/client-1@" + (T0 + 1000),
            SESSION + "/client-1@" + (T0 + 2000));
  }

  @Test
  void shouldDropAResendOfACaptureThatAnEarlierBuildStoredUnderItsRequestIdAlone() {
    // Given: the entry a build before capture ids kept for a request it stored (turn 1 of a chain)
    start(Map.of());
    window().put(SESSION + "/client-1", earlierBuildEntry(chat(1), "3fa85f64/1"), T0);

    // When: that event again (a spill resend after the upgrade), then another body under its id
    pipe(RawEvents.of(SESSION, "client-1", T0, chat(1)));
    pipe(RawEvents.of(SESSION, "client-1", T0 + 5000, chat(2)));

    // Then: the resend is dropped as that build would have dropped it; the other body is stored
    assertThat(deltas.readValuesToList()).extracting(DeltaRecord::ts).containsExactly(T0 + 5000);
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(1);
    assertThat(deadLetters.isEmpty()).isTrue();
  }

  @Test
  void shouldWriteTheEntryAnEarlierBuildLooksUpWhileUpgradingFromIt() {
    // Given: a member that writes generation 2, as in the first roll of an upgrade
    start(Map.of("PREFIXLOG_UPGRADE_FROM", "2"));

    // When: an event without a capture id, its retry, and one of the capture proxy's
    pipe(RawEvents.of(SESSION, "client-1", T0, chat(1)));
    pipe(RawEvents.of(SESSION, "client-1", T0 + 1000, chat(1)));
    pipe(RawEvents.captured(SESSION, "c-9", "gw-9", T0 + 2000, chat(2), 200));

    // Then: entries under the request id too, so that a member of the earlier build drops a resend
    // it did not store; meanwhile a retry without a capture id is dropped, as that build drops it
    // (the capture proxy's request id is its capture id: one key); metadata in version 1
    assertThat(dedupKeys())
        .containsExactly(SESSION + "/c-9", SESSION + "/client-1", SESSION + "/client-1@" + T0);
    assertThat(deltas.readValuesToList())
        .extracting(DeltaRecord::ts)
        .containsExactly(T0, T0 + 2000);
    assertThat(Meters.count(registry, "prefixlog_duplicate_requests_total")).isEqualTo(1);
    assertThat(metadata.readValuesToList())
        .extracting(RequestMetadata::schemaVersion, RequestMetadata::clientRequestId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, null),
            org.assertj.core.groups.Tuple.tuple(1, null));
  }

  @Test
  void shouldNameTheTenantInTheMetadataOfKeptAndLeftOutRequests() {
    // Given
    start(Map.of());

    // When: a kept turn of team-a, a request of team-a whose body was left out, one of no tenant
    pipe(RawEvents.ofTenant(SESSION, "t-1", T0, chat(1), "team-a", false));
    pipe(RawEvents.ofTenant(OTHER_SESSION, "t-2", T0 + 1000, chat(1), "team-a", true));
    pipe(RawEvents.of(SESSION, "t-3", T0 + 2000, chat(2)));
    // and one whose producer recorded an empty tenant, which names none
    pipe(RawEvents.ofTenant(OTHER_SESSION, "t-4", T0 + 3000, chat(1), "", true));

    // Then: the left-out request is found by its tenant on the metadata topic alone
    assertThat(metadata.readValuesToList())
        .extracting(
            RequestMetadata::requestId, RequestMetadata::tenant, RequestMetadata::bodyOmitted)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("t-1", "team-a", null),
            org.assertj.core.groups.Tuple.tuple("t-2", "team-a", RawRequestEvent.SAMPLED_OUT),
            org.assertj.core.groups.Tuple.tuple("t-3", null, null),
            org.assertj.core.groups.Tuple.tuple("t-4", null, RawRequestEvent.SAMPLED_OUT));
    assertThat(deltas.readValuesToList())
        .extracting(DeltaRecord::requestId)
        .containsExactly("t-1", "t-3");
  }

  @Test
  void shouldWriteMetadataWithoutTheTenantWhileUpgradingFromGeneration3() {
    // Given: a member of a group whose other members read metadata version 2 at most
    start(Map.of("PREFIXLOG_UPGRADE_FROM", "3"));

    // When
    pipe(RawEvents.ofTenant(OTHER_SESSION, "t-1", T0, chat(1), "team-a", true));

    // Then
    assertThat(metadata.readValuesToList())
        .extracting(RequestMetadata::schemaVersion, RequestMetadata::tenant)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(2, null));
  }

  // --- helpers ---

  private void start(Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(settings);
    all.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    StreamAppConfig config = StreamAppConfig.defaults(all);
    registry = new SimpleMeterRegistry();
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry)),
            StreamApp.streamsProperties(config),
            Instant.ofEpochMilli(T0 - 3_600_000));
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
    metadata =
        driver.createOutputTopic(
            topics.requestsMetadata().name(),
            Serdes.String().deserializer(),
            JsonSerde.of(RequestMetadata.class).deserializer());
    deadLetters =
        driver.createOutputTopic(
            topics.deadLetters().name(),
            Serdes.ByteArray().deserializer(),
            JsonSerde.of(DeadLetter.class).deserializer());
  }

  private void pipe(RawRequestEvent event) {
    raw.pipeInput(event.sessionKey(), RawEvents.bytes(event), event.ts());
  }

  private WindowStore<String, byte[]> window() {
    return driver.getWindowStore(SessionStores.REQUEST_IDS);
  }

  /** The keys of the dedup store, sorted. */
  private Set<String> dedupKeys() {
    Set<String> keys = new TreeSet<>();
    try (KeyValueIterator<Windowed<String>, byte[]> all = window().all()) {
      all.forEachRemaining(entry -> keys.add(entry.key.key()));
    }
    return keys;
  }

  /**
   * A dedup entry as builds before capture ids wrote it: version 1, the body's SHA-256, the turn
   * key without its session.
   */
  private static byte[] earlierBuildEntry(byte[] body, String turnWithoutSession) {
    byte[] turn = turnWithoutSession.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + 32 + turn.length)
        .put((byte) 1)
        .put(HexFormat.of().parseHex(Sha256.hex(body)))
        .put(turn)
        .array();
  }

  /** Turn {@code turns} of one synthetic chat: each repeats the one before and adds to it. */
  private static byte[] chat(int turns) {
    StringBuilder messages = new StringBuilder("{\"role\":\"system\",\"content\":\"Be brief.\"}");
    for (int t = 1; t <= turns; t++) {
      messages.append(",{\"role\":\"user\",\"content\":\"Question ").append(t).append("?\"}");
    }
    return ("{\"model\":\"test-model\",\"messages\":[" + messages + "]}")
        .getBytes(StandardCharsets.UTF_8);
  }
}
