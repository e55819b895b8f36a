package io.prefixlog.embedded;

import io.prefixlog.schemas.RecordLimits;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Renders the files a {@link KafkaBroker} child reads: server.properties and a log4j2 config. */
final class BrokerConfig {
  static final String NODE_ID = "1";

  /**
   * 33 MiB, the largest record the topics allow for 16 MiB bodies ({@link RecordLimits}): the
   * broker default applies to the topics Kafka Streams creates (changelogs, repartition topics),
   * and a smaller one than the topics' made a record the app could write fail on the broker. An app
   * configured for larger bodies checks the broker at start ({@code LimitCheck}).
   */
  private static final String MESSAGE_MAX_BYTES =
      Long.toString(RecordLimits.DEFAULT_MAX_RECORD_BYTES);

  /**
   * Settings every single-node prefixlog broker needs whatever starts it. Internal topics get
   * replication factor 1 and min.isr 1: with the defaults (3 and 2) the transaction log is never
   * created on one node and exactly-once producers and Streams apps stall. The group-rebalance
   * delay is 0 so the first consumer gets partitions at once. Thread counts and the log-cleaner
   * buffer (128 MiB of heap by default) are sized for a 512 MiB heap. Topics are created explicitly
   * by the apps and tests. Message limits fit 16 MiB bodies as the topics do.
   *
   * <p>The segment size equals the message limit: a broker rejects any batch larger than the
   * topic's {@code segment.bytes} (RecordBatchTooLargeException, "larger than the configured
   * segment size"), so 1 MiB segments, the smallest Kafka 4 accepts, would cap records at 1 MiB.
   * Compacted test topics roll by time instead ({@code segment.ms}).
   */
  static final Map<String, String> SINGLE_NODE_SETTINGS = singleNodeSettings();

  private BrokerConfig() {}

  private static Map<String, String> singleNodeSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("num.partitions", "1");
    settings.put("offsets.topic.replication.factor", "1");
    settings.put("offsets.topic.num.partitions", "1");
    settings.put("transaction.state.log.replication.factor", "1");
    settings.put("transaction.state.log.min.isr", "1");
    settings.put("transaction.state.log.num.partitions", "1");
    settings.put("share.coordinator.state.topic.replication.factor", "1");
    settings.put("share.coordinator.state.topic.min.isr", "1");
    settings.put("share.coordinator.state.topic.num.partitions", "1");
    settings.put("group.initial.rebalance.delay.ms", "0");
    settings.put("num.network.threads", "2");
    settings.put("num.io.threads", "2");
    settings.put("background.threads", "2");
    settings.put("log.segment.bytes", MESSAGE_MAX_BYTES);
    settings.put("log.cleaner.dedupe.buffer.size", "4194304");
    settings.put("log.cleaner.backoff.ms", "1000");
    settings.put("auto.create.topics.enable", "false");
    settings.put("message.max.bytes", MESSAGE_MAX_BYTES);
    settings.put("replica.fetch.max.bytes", MESSAGE_MAX_BYTES);
    return Collections.unmodifiableMap(settings);
  }

  /** The combined broker+controller configuration, in file order; extra properties win. */
  static Map<String, String> serverProperties(
      KafkaBroker.Options options, int brokerPort, int controllerPort) {
    String host = options.host();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("process.roles", "broker,controller");
    properties.put("node.id", NODE_ID);
    properties.put("controller.quorum.voters", NODE_ID + "@" + host + ":" + controllerPort);
    properties.put(
        "listeners",
        "PLAINTEXT://" + host + ":" + brokerPort + ",CONTROLLER://" + host + ":" + controllerPort);
    properties.put("advertised.listeners", "PLAINTEXT://" + host + ":" + brokerPort);
    properties.put("controller.listener.names", "CONTROLLER");
    properties.put("inter.broker.listener.name", "PLAINTEXT");
    properties.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
    properties.put("log.dirs", logDirs(options.dataDir()).toString());
    properties.putAll(SINGLE_NODE_SETTINGS);
    properties.putAll(options.brokerProperties());
    return properties;
  }

  /** Kafka's own data (KRaft metadata log and topic partitions) under the data directory. */
  static Path logDirs(Path dataDir) {
    return dataDir.toAbsolutePath().resolve("data");
  }

  static String render(Map<String, String> properties) {
    StringBuilder text =
        new StringBuilder("# Written by prefixlog KafkaBroker; rewritten on every start.\n");
    properties.forEach(
        (key, value) ->
            text.append(key).append('=').append(value.replace("\\", "\\\\")).append('\n'));
    return text.toString();
  }

  /** The broker's log4j2 configuration: {@link ChildLog4j2#warnToStdout}. */
  static String log4j2Properties() {
    return ChildLog4j2.warnToStdout("KafkaBroker");
  }
}
