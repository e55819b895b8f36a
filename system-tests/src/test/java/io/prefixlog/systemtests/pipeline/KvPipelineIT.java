package io.prefixlog.systemtests.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.bridge.kv.KvBridge;
import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.kv.PythonPublisher;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.topic.CompactedView;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KV-event path end to end against real peers: a Python publisher speaking vLLM's framing
 * (pyzmq PUB and ROUTER, legacy arrays and maps, uint64 and bytes hashes) → the ingest bridge's
 * subscriber → a real broker → the stream app. After each phase — normal flow, a dropped range
 * recovered by replay, a range too old to replay (gap marker), a publisher restart (restart
 * marker), malformed frames, unknown event types — the compacted {@code kv.block-index} read back
 * from the broker (last value per key, tombstones remove) equals exactly the blocks a reference
 * model holds: copies per hash from the publisher's own account of what it sent, cleared by each
 * marker.
 */
@ExtendWith(KafkaExtension.class)
class KvPipelineIT {
  private static final String PREFIX = "kvpipe.";

  @TempDir Path dir;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldKeepTheBlockIndexEqualToTheEngineThroughReplayGapsRestartsAndBadFrames(
      KafkaCluster kafka) throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
    settings.put("PREFIXLOG_APPLICATION_ID", "kv-pipeline-app");
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state").toString());
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_PARTITIONS", "3");
    settings.put("PREFIXLOG_KV_STATS_INTERVAL", "500ms");
    try (StreamApp app = new StreamApp(StreamAppConfig.defaults(settings));
        PythonPublisher publisher = PythonPublisher.start("--topic", "kv", "--buffer", "8")) {
      app.start();
      awaitRunning(app);
      Map<String, String> bridgeSettings = new HashMap<>(settings);
      bridgeSettings.put("PREFIXLOG_KV_ENDPOINTS", publisher.pubEndpoint);
      bridgeSettings.put("PREFIXLOG_KV_REPLAY_ENDPOINTS", publisher.routerEndpoint);
      bridgeSettings.put("PREFIXLOG_KV_TOPIC", "kv");
      bridgeSettings.put("PREFIXLOG_KV_RECONNECT_MIN", "50ms");
      bridgeSettings.put("PREFIXLOG_KV_RECONNECT_MAX", "500ms");
      KvBridgeConfig bridgeConfig = KvBridgeConfig.defaults(bridgeSettings);
      try (KvBridge bridge = new KvBridge(bridgeConfig)) {
        bridge.start();
        Run run =
            new Run(
                kafka,
                publisher,
                bridge,
                app.metrics().registry(),
                bridgeConfig.subscriptions().get(0).source().id());

        // normal flow: legacy arrays with uint64 hashes, then maps with byte hashes
        run.probe();
        run.send("send 5", "encoding map", "hashes bytes", "send 3");
        run.assertIndex("normal flow");

        // a dropped range (10..12) recovered by replay
        run.send("hashes int", "drop 10 12", "send 6");
        run.assertIndex("replayed range");

        // 16..35 withheld; the engine buffers only the last 8 (32..39): 16..31 are a gap
        run.send("encoding array", "drop 16 35", "send 25");
        run.dropExpected(16, 31);
        run.insertGapBefore(32, 16, 31);
        run.assertIndex("gap too old to replay");

        // the publisher restarts: seq from 0, new hashes
        run.send("restart");
        run.probe();
        run.send("send 3");
        run.assertIndex("publisher restart");

        // malformed frames and undecodable payloads (each lost seq is a gap), then more batches
        run.send("garbage", "send 2");
        run.assertIndex("malformed frames");

        // event types prefixlog does not know ride along with a store
        run.send("unknown", "send 1");
        run.assertIndex("unknown event types");

        run.assertStats();
        assertThat(Meters.count(app.metrics().registry(), "prefixlog_dead_letters_total")).isZero();
      }
    }
  }

  /** The publisher, what must come out, and the checks. */
  private static final class Run {
    private final KafkaCluster kafka;
    private final PythonPublisher publisher;
    private final KvBridge bridge;
    private final MeterRegistry app;
    private final String source;
    private final List<JsonNode> expected = new ArrayList<>();

    Run(
        KafkaCluster kafka,
        PythonPublisher publisher,
        KvBridge bridge,
        MeterRegistry app,
        String source) {
      this.kafka = kafka;
      this.publisher = publisher;
      this.bridge = bridge;
      this.app = app;
      this.source = source;
    }

    /**
     * ZMQ's slow joiner: batch 0 is re-sent (same seq and payload) until the bridge published it
     * with the restart marker it starts a run with; later copies are dropped as duplicates.
     */
    void probe() throws InterruptedException {
      long restarts = Meters.count(bridge.metrics(), "prefixlog_kv_restarts_total");
      long batches = Meters.count(bridge.metrics(), "prefixlog_kv_batches_total");
      expected.add(marker("restart"));
      send("send 1");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Meters.count(bridge.metrics(), "prefixlog_kv_restarts_total") == restarts
          || Meters.count(bridge.metrics(), "prefixlog_kv_batches_total") == batches) {
        assertThat(System.nanoTime()).as("the bridge received the probe").isLessThan(deadline);
        Thread.sleep(50);
        publisher.command("resend");
      }
    }

    void send(String... commands) {
      for (String command : commands) {
        for (String line : publisher.command(command)) {
          if (line.startsWith("expect batch ")) {
            expected.add(read(line.substring("expect batch ".length())));
          } else if (line.startsWith("expect lost ")) {
            expected.add(marker("gap"));
          } else if (!line.startsWith("expect dead ")) {
            throw new AssertionError("unexpected line from the publisher: " + line);
          }
        }
      }
    }

    void dropExpected(long from, long to) {
      expected.removeIf(
          n -> !n.has("marker") && n.get("seq").asLong() >= from && n.get("seq").asLong() <= to);
    }

    void insertGapBefore(long seq, long from, long to) {
      for (int i = expected.size() - 1; i >= 0; i--) {
        JsonNode n = expected.get(i);
        if (!n.has("marker") && n.get("seq").asLong() == seq) {
          expected.add(i, marker("gap"));
          return;
        }
      }
      throw new AssertionError("no batch " + seq + " expected (gap " + from + ".." + to + ")");
    }

    private static ObjectNode marker(String kind) {
      ObjectNode marker = Json.mapper().createObjectNode();
      marker.put("marker", kind);
      return marker;
    }

    /** The reference: copies per hash, from the expected records in order. */
    Map<String, Integer> model() {
      Map<String, Integer> copies = new TreeMap<>();
      for (JsonNode record : expected) {
        if (record.has("marker")) {
          copies.clear();
          continue;
        }
        for (JsonNode event : record.get("events")) {
          String type = event.get("type").asText();
          if (type.equals("AllBlocksCleared")) {
            copies.clear();
          } else if (type.equals("BlockStored")) {
            event.get("block_hashes").forEach(h -> copies.merge(h.asText(), 1, Integer::sum));
          } else if (type.equals("BlockRemoved")) {
            event
                .get("block_hashes")
                .forEach(h -> copies.computeIfPresent(h.asText(), (k, c) -> c == 1 ? null : c - 1));
          }
        }
      }
      return copies;
    }

    long recordsIndexed() {
      long total = 0;
      for (String kind : List.of("batch", "gap", "restart")) {
        total += Meters.count(app, "prefixlog_kv_index_batches_total", "kind", kind);
      }
      return total;
    }

    /** Waits for the stream app to apply every record, then compares the compacted index. */
    void assertIndex(String phase) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (recordsIndexed() < expected.size()) {
        assertThat(System.nanoTime())
            .as("%s: %d of %d kv.events records indexed", phase, recordsIndexed(), expected.size())
            .isLessThan(deadline);
        Thread.sleep(100);
      }
      Thread.sleep(500); // nothing more arrives
      assertThat(recordsIndexed()).as(phase + ": records indexed").isEqualTo(expected.size());
      Map<String, Integer> model = model();
      Map<String, Integer> index = index();
      while (!index.equals(model) && System.nanoTime() < deadline) {
        Thread.sleep(200); // the last exactly-once transaction may still be committing
        index = index();
      }
      assertThat(index).as(phase).isEqualTo(model);
    }

    /** The compacted block index of the source: hash → copies. */
    private Map<String, Integer> index() throws Exception {
      JsonSerde<BlockIndexEntry> serde = JsonSerde.of(BlockIndexEntry.class);
      Map<String, Integer> index = new TreeMap<>();
      for (Map.Entry<String, byte[]> e :
          CompactedView.read(kafka.bootstrapServers(), PREFIX + "kv.block-index", "kv-it")
              .entrySet()) {
        BlockIndexEntry entry = serde.fromBytes(e.getValue());
        assertThat(e.getKey()).isEqualTo(BlockIndexEntry.key(source, entry.hash()));
        assertThat(entry.medium()).isEqualTo("GPU");
        index.put(entry.hash(), entry.copies());
      }
      return index;
    }

    void assertStats() throws Exception {
      long gaps = expected.stream().filter(n -> n.path("marker").asText().equals("gap")).count();
      long restarts =
          expected.stream().filter(n -> n.path("marker").asText().equals("restart")).count();
      long resident = model().size();
      JsonSerde<SourceStats> serde = JsonSerde.of(SourceStats.class);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      SourceStats stats = null;
      while (System.nanoTime() < deadline) {
        byte[] value =
            CompactedView.read(kafka.bootstrapServers(), PREFIX + "kv.source-stats", "kv-it")
                .get(source);
        stats = value == null ? null : serde.fromBytes(value);
        if (stats != null && stats.residentBlocks() == resident && stats.gaps() == gaps) {
          break;
        }
        Thread.sleep(250);
      }
      assertThat(stats).isNotNull();
      assertThat(stats.residentBlocks()).isEqualTo(resident);
      assertThat(stats.gaps()).isEqualTo(gaps);
      assertThat(stats.restarts()).isEqualTo(restarts);
    }

    private static JsonNode read(String json) {
      try {
        return Json.mapper().readTree(json);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + json, e);
      }
    }
  }

  private static void awaitRunning(StreamApp app) {
    await()
        .alias("stream app RUNNING")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(app::state, state -> state == KafkaStreams.State.RUNNING);
  }
}
