package io.prefixlog.benchmarks.harness;

import io.prefixlog.schemas.Topic;
import io.prefixlog.streams.StreamAppConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The topics of the real topology under a {@link TopologyTestDriver}, as raw bytes: the benchmarks
 * that measure the processors without a broker feed the captured events as the proxy wrote them and
 * read the records as they would be stored.
 */
public final class DriverTopics {
  private DriverTopics() {}

  /** The raw-requests topic the topology reads, keyed by session key. */
  public static TestInputTopic<String, byte[]> rawInput(
      TopologyTestDriver driver, StreamAppConfig config) {
    return driver.createInputTopic(
        config.topics().requestsRaw().name(), new StringSerializer(), new ByteArraySerializer());
  }

  /** One of the topology's output topics, values left as the bytes it wrote. */
  public static TestOutputTopic<String, byte[]> output(
      TopologyTestDriver driver, Topic<?, ?> topic) {
    return driver.createOutputTopic(
        topic.name(), new StringDeserializer(), new ByteArrayDeserializer());
  }
}
