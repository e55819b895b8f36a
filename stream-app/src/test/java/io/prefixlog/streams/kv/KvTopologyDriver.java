package io.prefixlog.streams.kv;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.time.Instant;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The whole topology in a {@link TopologyTestDriver} with the KV index's topics opened, as the KV
 * tests drive it: the raw KV events in, the block index and the source statistics out.
 */
final class KvTopologyDriver {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final TopologyTestDriver driver;
  final TestInputTopic<String, byte[]> events;
  final TestOutputTopic<String, BlockIndexEntry> index;
  final TestOutputTopic<String, SourceStats> stats;

  KvTopologyDriver(StreamAppConfig config, long startMs) {
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(registry)),
            StreamApp.streamsProperties(config),
            Instant.ofEpochMilli(startMs));
    Topics topics = config.topics();
    events =
        driver.createInputTopic(
            topics.kvEvents().name(),
            Serdes.String().serializer(),
            Serdes.ByteArray().serializer());
    index =
        driver.createOutputTopic(
            topics.blockIndex().name(),
            Serdes.String().deserializer(),
            JsonSerde.of(BlockIndexEntry.class).deserializer());
    stats =
        driver.createOutputTopic(
            topics.sourceStats().name(),
            Serdes.String().deserializer(),
            JsonSerde.of(SourceStats.class).deserializer());
  }
}
