package io.prefixlog.core.config;

import java.util.List;

/**
 * The settings every prefixlog service reads the same way, declared once and shared by their
 * descriptor tables ({@link ConfigDef}).
 */
public final class CommonKeys {
  public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";

  public static final ConfigKey<String> BOOTSTRAP_SERVERS =
      ConfigKey.of("PREFIXLOG_BOOTSTRAP_SERVERS", ConfigTypes.text())
          .defaultValue(DEFAULT_BOOTSTRAP)
          .doc("Kafka bootstrap servers, comma separated");

  public static final ConfigKey<String> TOPIC_PREFIX =
      ConfigKey.of("PREFIXLOG_TOPIC_PREFIX", ConfigTypes.text())
          .defaultValue("prefixlog.")
          .doc("prefix of every topic name (`<prefix>requests.raw`, `<prefix>deltas`, …)");

  public static final ConfigKey<String> METRICS_HOST =
      ConfigKey.of("PREFIXLOG_METRICS_HOST", ConfigTypes.text())
          .defaultValue("127.0.0.1")
          .doc("address of `/metrics` and `/health`");

  public static final ConfigKey<Boolean> ALLOW_WEAKER_DELIVERY =
      ConfigKey.of(KafkaPassThrough.ALLOW, ConfigTypes.bool())
          .defaultValue(false)
          .doc(
              "a `PREFIXLOG_KAFKA_*` pass-through that weakens a guarantee (`processing.guarantee`"
                  + " other than `exactly_once_v2`, `enable.idempotence=false`, `acks` other than"
                  + " `all`, `isolation.level=read_uncommitted`) is refused at start, naming the"
                  + " variable, unless this is `true` (then logged at WARN every start)");

  /**
   * Shared by the stream app (chunk lookups of kept bodies) and the bridge (chunk hashes of
   * sampled-out bodies): the two must chunk alike for the lookups to compare.
   */
  public static final ConfigKey<Long> CHUNK_SIZE_BYTES =
      ConfigKey.of("PREFIXLOG_CHUNK_SIZE_BYTES", ConfigTypes.size(16, 1 << 20))
          .defaultValue(256L)
          .doc(
              "bytes of the rendered prompt per chunk (about 64 tokens); the same on the bridge"
                  + " and the stream app");

  /** The documentation row of the Kafka client pass-through ({@link KafkaPassThrough}). */
  public static final ConfigDef.Note KAFKA_PASS_THROUGH =
      new ConfigDef.Note(
          KafkaPassThrough.PREFIX + "*",
          "none",
          "Kafka client settings",
          "passed to the Kafka clients: `PREFIXLOG_KAFKA_SECURITY_PROTOCOL=SSL` sets"
              + " `security.protocol`");

  private CommonKeys() {}

  /** {@code PREFIXLOG_METRICS_PORT} with this service's default port. */
  public static ConfigKey<Integer> metricsPort(int defaultPort) {
    return ConfigKey.of("PREFIXLOG_METRICS_PORT", ConfigTypes.integer(-1, 65535))
        .defaultValue(defaultPort)
        .doc("port of `/metrics` and `/health` (0: any free port; `-1`: no endpoint)");
  }

  /** The keys of {@code service}'s table followed by the Kafka pass-through row. */
  public static ConfigDef withKafka(String service, List<ConfigKey<?>> keys) {
    return ConfigDef.of(service, keys).withNote(KAFKA_PASS_THROUGH);
  }
}
