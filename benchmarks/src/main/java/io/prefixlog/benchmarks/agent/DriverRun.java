package io.prefixlog.benchmarks.agent;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.benchmarks.harness.DriverTopics;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The stream app's real topology ({@link PrefixlogTopology#build} with {@link
 * StreamApp#streamsProperties}: its processors, Serdes and RocksDB stores) driven in this JVM by
 * Kafka Streams' {@code TopologyTestDriver}, without a broker. It gives the exact records the app
 * writes for a stream of events, what the output topics store of them ({@link TopicBytes}), and
 * whether every turn rebuilds from the deltas alone.
 */
final class DriverRun {
  private static final JsonSerde<DeltaRecord> DELTAS = JsonSerde.of(DeltaRecord.class);

  /**
   * What one pass produced.
   *
   * @param deltaBytes what {@code session.deltas} stores of the records
   * @param lookupBytes what {@code chunk.lookups} stores of the records
   * @param sessionKeys distinct session keys the events carried
   * @param mixedKeys session keys that held turns of more than one conversation
   * @param keyframes delta records of kind {@code full}
   * @param rebuild every turn rebuilt from the delta records alone
   * @param processNanos time inside the driver's {@code pipeInput}, on this thread
   */
  record Result(
      long events,
      long deltas,
      long lookups,
      long deltaBytes,
      long lookupBytes,
      int sessionKeys,
      int mixedKeys,
      long keyframes,
      Map<String, Integer> keyframeReasons,
      RebuildReport rebuild,
      long processNanos) {}

  private DriverRun() {}

  static Result run(List<AgentEvents.Event> events, Map<String, String> settings, Path stateDir) {
    Map<String, String> all = new HashMap<>(settings);
    all.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    StreamAppConfig config = StreamAppConfig.defaults(all);
    StreamAppMetrics metrics = new StreamAppMetrics(new SimpleMeterRegistry());
    Properties properties = StreamApp.streamsProperties(config, metrics);
    int partitions = config.statePartitions();
    TopicBytes deltaBytes =
        new TopicBytes(partitions, storedLevel(config, config.topics().sessionDeltas().name()));
    TopicBytes lookupBytes =
        new TopicBytes(partitions, storedLevel(config, config.topics().chunkLookups().name()));
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    Map<String, String> conversationOfKey = new HashMap<>();
    Set<String> mixed = new HashSet<>();
    Map<String, Integer> reasons = new HashMap<>();
    long keyframes = 0;
    long nanos = 0;
    try (TopologyTestDriver driver =
        new TopologyTestDriver(PrefixlogTopology.build(config, metrics), properties)) {
      TestInputTopic<String, byte[]> input = DriverTopics.rawInput(driver, config);
      TestOutputTopic<String, byte[]> deltas =
          DriverTopics.output(driver, config.topics().sessionDeltas());
      TestOutputTopic<String, byte[]> lookups =
          DriverTopics.output(driver, config.topics().chunkLookups());
      for (AgentEvents.Event event : events) {
        String seen = conversationOfKey.putIfAbsent(event.key(), event.conversationId());
        if (seen != null && !seen.equals(event.conversationId())) {
          mixed.add(event.key());
        }
        long t0 = System.nanoTime();
        input.pipeInput(event.key(), event.value(), event.timestamp());
        nanos += System.nanoTime() - t0;
        // Drained as they come, in produce order, so that batches hold what a producer's would.
        for (KeyValue<String, byte[]> record : deltas.readKeyValuesToList()) {
          deltaBytes.add(record.key, record.value);
          DeltaRecord delta = DELTAS.fromBytes(record.value);
          if (delta.isKeyframe()) {
            keyframes++;
            reasons.merge(delta.keyframeReason(), 1, Integer::sum);
          }
          rebuilder.addTopicRecord(record.key, record.value, "driver");
        }
        for (KeyValue<String, byte[]> record : lookups.readKeyValuesToList()) {
          lookupBytes.add(record.key, record.value);
        }
      }
    } finally {
      ScratchDirs.deleteRecursively(stateDir);
    }
    RebuildReport report = rebuilder.run(RebuildListener.NONE);
    return new Result(
        events.size(),
        deltaBytes.records(),
        lookupBytes.records(),
        deltaBytes.compressedBytes(),
        lookupBytes.compressedBytes(),
        conversationOfKey.size(),
        mixed.size(),
        keyframes,
        reasons,
        report,
        nanos);
  }

  /** The zstd level the stream app has the broker store {@code topic} at. */
  static int storedLevel(StreamAppConfig config, String topic) {
    for (NewTopic planned : TopicCreator.plan(config)) {
      if (planned.name().equals(topic)) {
        return Integer.parseInt(planned.configs().get(TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG));
      }
    }
    throw new IllegalArgumentException("the stream app plans no topic " + topic);
  }
}
