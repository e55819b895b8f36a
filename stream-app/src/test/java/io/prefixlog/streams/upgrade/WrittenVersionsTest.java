package io.prefixlog.streams.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.session.SessionStores;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the app writes carries the versions {@link FormatGenerations#KNOWN} lists for the generation
 * it writes, the newest or the one {@code PREFIXLOG_UPGRADE_FROM} names: a codec moved to a new
 * version without a new generation in the table fails here, as the store values and records come
 * out of the real topology.
 */
class WrittenVersionsTest {
  private static final long T0 = 1_750_000_000_000L;
  private static final String SESSION = "0123456789abcdef0123456789abcdef";

  @TempDir Path stateDir;

  static List<Integer> generations() {
    return FormatGenerations.KNOWN.numbers();
  }

  @ParameterizedTest(name = "generation {0}")
  @MethodSource("generations")
  void shouldWriteTheVersionsOfTheGenerationItWrites(int generation) {
    // Given: the newest generation unset, an older one by PREFIXLOG_UPGRADE_FROM
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    if (generation != FormatGenerations.KNOWN.newest().number()) {
      settings.put("PREFIXLOG_UPGRADE_FROM", Integer.toString(generation));
    }
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    Topics topics = config.topics();
    Map<WireFormat, Integer> written = new EnumMap<>(WireFormat.class);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(new SimpleMeterRegistry())),
            StreamApp.streamsProperties(config),
            Instant.ofEpochMilli(T0))) {
      TestInputTopic<String, byte[]> raw =
          driver.createInputTopic(
              topics.requestsRaw().name(),
              Serdes.String().serializer(),
              Serdes.ByteArray().serializer());
      TestInputTopic<String, byte[]> kv =
          driver.createInputTopic(
              topics.kvEvents().name(),
              Serdes.String().serializer(),
              Serdes.ByteArray().serializer());

      // When: two turns of a session, a malformed raw event, a batch of KV events
      raw.pipeInput(SESSION, event("req-1", T0, chat(1)));
      raw.pipeInput(SESSION, event("req-2", T0 + 1000, chat(2)));
      raw.pipeInput(SESSION, "{\"schema_version\":1,".getBytes(StandardCharsets.UTF_8));
      KvSource source = KvSource.of("tcp://10.0.0.1:5557", 0, "kv");
      kv.pipeInput(source.id(), kvBatch(source));

      // Then
      written.put(
          WireFormat.SESSION_STATE, firstBytes(driver.getKeyValueStore(SessionStores.STATE)));
      written.put(
          WireFormat.SESSION_BASE, firstBytes(driver.getKeyValueStore(SessionStores.BASES)));
      WindowStore<String, byte[]> requestIds = driver.getWindowStore(SessionStores.REQUEST_IDS);
      assertThat(firstBytes(requestIds)).as("the dedup entries' value version").isEqualTo(1);
      written.put(WireFormat.SEEN_REQUEST, dedupKeysVersion(requestIds));
      written.put(WireFormat.KV_BLOCK_STATE, firstBytes(driver.getKeyValueStore("kv-block-index")));
      written.put(
          WireFormat.KV_SOURCE_STATS_STATE, firstBytes(driver.getKeyValueStore("kv-source-stats")));
      written.put(
          WireFormat.DELTA_RECORD,
          only(
              driver
                  .createOutputTopic(
                      topics.sessionDeltas().name(),
                      Serdes.String().deserializer(),
                      JsonSerde.of(DeltaRecord.class).deserializer())
                  .readValuesToList()
                  .stream()
                  .map(DeltaRecord::schemaVersion)
                  .toList()));
      written.put(
          WireFormat.CHUNK_LOOKUP,
          only(
              driver
                  .createOutputTopic(
                      topics.chunkLookups().name(),
                      Serdes.String().deserializer(),
                      JsonSerde.of(ChunkLookupRecord.class).deserializer())
                  .readValuesToList()
                  .stream()
                  .map(r -> r.schemaVersion() == null ? 1 : r.schemaVersion())
                  .toList()));
      written.put(
          WireFormat.REQUEST_METADATA,
          only(
              driver
                  .createOutputTopic(
                      topics.requestsMetadata().name(),
                      Serdes.String().deserializer(),
                      JsonSerde.of(RequestMetadata.class).deserializer())
                  .readValuesToList()
                  .stream()
                  .map(RequestMetadata::schemaVersion)
                  .toList()));
      written.put(
          WireFormat.DEAD_LETTER,
          only(
              driver
                  .createOutputTopic(
                      topics.deadLetters().name(),
                      Serdes.ByteArray().deserializer(),
                      JsonSerde.of(DeadLetter.class).deserializer())
                  .readValuesToList()
                  .stream()
                  .map(DeadLetter::schemaVersion)
                  .toList()));
    }
    Map<WireFormat, Integer> listed =
        new EnumMap<>(FormatGenerations.KNOWN.toWrite(generation).versions());
    listed.keySet().retainAll(written.keySet());
    assertThat(written).isEqualTo(listed);
  }

  /** The one version byte the values of {@code store} begin with. */
  private static int firstBytes(KeyValueStore<String, byte[]> store) {
    Set<Integer> versions = new TreeSet<>();
    try (KeyValueIterator<String, byte[]> all = store.all()) {
      all.forEachRemaining(entry -> versions.add((int) entry.value[0]));
    }
    return only(List.copyOf(versions));
  }

  private static int firstBytes(WindowStore<String, byte[]> store) {
    Set<Integer> versions = new TreeSet<>();
    try (KeyValueIterator<Windowed<String>, byte[]> all = store.all()) {
      all.forEachRemaining(entry -> versions.add((int) entry.value[0]));
    }
    return only(List.copyOf(versions));
  }

  /**
   * The version of the dedup entries' keys: 1 when each request id has an entry of its own ({@code
   * session_key/request_id}, which builds before capture ids look up), 2 when only the captures'
   * identities do ({@code session_key/request_id@ts} for these events, which carry no capture id).
   */
  private static int dedupKeysVersion(WindowStore<String, byte[]> store) {
    Set<String> keys = new TreeSet<>();
    try (KeyValueIterator<Windowed<String>, byte[]> all = store.all()) {
      all.forEachRemaining(entry -> keys.add(entry.key.key()));
    }
    assertThat(keys).contains(SESSION + "/req-1@" + T0, SESSION + "/req-2@" + (T0 + 1000));
    return keys.contains(SESSION + "/req-1") ? 1 : 2;
  }

  private static int only(List<Integer> versions) {
    assertThat(List.copyOf(new TreeSet<>(versions))).hasSize(1);
    return versions.get(0);
  }

  private static byte[] event(String requestId, long ts, byte[] body) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return JsonSerde.of(RawRequestEvent.class)
        .toBytes(
            new RawRequestEvent(
                1,
                requestId,
                ts,
                SESSION,
                "header:x-session-id",
                "127.0.0.1",
                "test-agent/1.0",
                Map.of(),
                "POST",
                "/v1/chat/completions",
                "test-model",
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

  private static byte[] chat(int turns) {
    StringBuilder messages =
        new StringBuilder("{\"role\":\"system\",\"content\":\"You answer questions.\"}");
    for (int t = 1; t <= turns; t++) {
      messages.append(",{\"role\":\"user\",\"content\":\"Why is the sky blue? Ask ").append(t);
      messages.append(" about Rayleigh scattering, in detail, twice over.\"}");
      if (t < turns) {
        messages.append(",{\"role\":\"assistant\",\"content\":\"Rayleigh scattering ").append(t);
        messages.append(": shorter wavelengths scatter more strongly in the atmosphere.\"}");
      }
    }
    return ("{\"model\":\"test-model\",\"messages\":[" + messages + "],\"stream\":false}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] kvBatch(KvSource source) {
    KvEvent stored =
        new KvEvent(
            KvEvent.BLOCK_STORED,
            List.of("aa01"),
            null,
            16,
            16,
            null,
            null,
            "GPU",
            0,
            null,
            null,
            null,
            null,
            null);
    return JsonSerde.of(KvEventBatch.class)
        .toBytes(
            new KvEventBatch(
                KvEventBatch.SCHEMA_VERSION,
                source.id(),
                source.endpoint(),
                source.dataParallelRank(),
                source.topic(),
                1L,
                T0,
                T0 / 1000.0,
                null,
                null,
                null,
                List.of(stored)));
  }
}
