package io.prefixlog.bridge.kv;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every setting of the KV-event subscriber, validated on construction. {@link #fromSettings} reads
 * them from environment variables (names below) or a properties file named by {@code
 * PREFIXLOG_CONFIG_FILE}; {@code PREFIXLOG_KAFKA_*} settings pass through to the producer ({@code
 * PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes {@code security.protocol}).
 *
 * @param endpoints {@code PREFIXLOG_KV_ENDPOINTS}, required: the engines' ZMQ PUB endpoints, comma
 *     separated ({@code tcp://host:port}, {@code ipc://path} or {@code inproc://name}), the address
 *     of data-parallel rank 0 of each engine; the bridge connects to them
 * @param replayEndpoints {@code PREFIXLOG_KV_REPLAY_ENDPOINTS}, default none: the engines' ROUTER
 *     replay endpoints, comma separated, one per entry of {@code endpoints} in the same order
 *     ({@code -} or an empty entry for an engine without one); rank r uses its port + r like the
 *     PUB endpoint
 * @param topic {@code PREFIXLOG_KV_TOPIC}, default empty (vLLM's default): the ZMQ topic subscribed
 *     to. ZMQ filters by prefix; a message whose topic frame is not exactly this one is
 *     dead-lettered ({@code unexpected_topic})
 * @param dataParallelRanks {@code PREFIXLOG_KV_DP_RANKS}, default {@code 0}: the ranks of every
 *     engine, as a list and/or ranges ({@code 0-3}, {@code 0,2,5}); rank r of {@code tcp://h:P} is
 *     at {@code tcp://h:(P+r)} and of {@code inproc://x} at {@code inproc://x_dp<r>} (vLLM's {@code
 *     offset_endpoint_port}); an {@code ipc://} endpoint allows rank 0 only
 * @param bootstrapServers {@code PREFIXLOG_BOOTSTRAP_SERVERS}, default {@code 127.0.0.1:9092}
 * @param topicPrefix {@code PREFIXLOG_TOPIC_PREFIX}, default {@code prefixlog.}: batches go to
 *     {@code <prefix>kv.events}, dead letters to {@code <prefix>dlq}
 * @param replayTimeout {@code PREFIXLOG_KV_REPLAY_TIMEOUT}, default 5s: the most one replay may
 *     take; what has not arrived by then is a gap
 * @param queueRecords {@code PREFIXLOG_KV_QUEUE_RECORDS}, default 10000: records the hand-off to
 *     the producer holds at most
 * @param queueBytes {@code PREFIXLOG_KV_QUEUE_BYTES}, default 64MiB: bytes it holds at most
 * @param reconnectMin {@code PREFIXLOG_KV_RECONNECT_MIN}, default 100ms: the first reconnect delay
 * @param reconnectMax {@code PREFIXLOG_KV_RECONNECT_MAX}, default 10s: the longest one (the delay
 *     doubles up to it)
 * @param heartbeat {@code PREFIXLOG_KV_HEARTBEAT}, default 10s: ZMTP heartbeat interval towards the
 *     engine, so that a vanished engine is noticed and reconnected (timeout 3×); 0 disables
 * @param receiveHwm {@code PREFIXLOG_KV_RECEIVE_HWM}, default 100000: messages ZMQ buffers per
 *     subscription before it drops (vLLM's PUB high-water mark)
 * @param maxMessageBytes {@code PREFIXLOG_KV_MAX_MESSAGE_BYTES}, default 64MiB: a larger frame
 *     drops the connection (ZMQ's {@code MAXMSGSIZE})
 * @param metricsHost {@code PREFIXLOG_METRICS_HOST}, default 127.0.0.1
 * @param metricsPort {@code PREFIXLOG_METRICS_PORT}, default 9465; -1 disables the endpoint
 * @param resumeTimeout {@code PREFIXLOG_KV_RESUME_TIMEOUT}, default 30s: the most reading back
 *     where each source's log in {@code kv.events} stands may take when the bridge starts; past it
 *     (or with 0, which skips the read) every source starts as seen for the first time (a marker,
 *     then what the engine still buffers)
 * @param kafka producer settings passed through ({@code PREFIXLOG_KAFKA_*})
 */
public record KvBridgeConfig(
    List<String> endpoints,
    List<String> replayEndpoints,
    String topic,
    List<Integer> dataParallelRanks,
    String bootstrapServers,
    String topicPrefix,
    Duration replayTimeout,
    int queueRecords,
    long queueBytes,
    Duration reconnectMin,
    Duration reconnectMax,
    Duration heartbeat,
    Duration handshakeTimeout,
    int receiveHwm,
    long maxMessageBytes,
    String metricsHost,
    int metricsPort,
    Duration resumeTimeout,
    Map<String, String> kafka) {

  public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";
  public static final int DEFAULT_METRICS_PORT = 9465;

  private static final Pattern TCP = Pattern.compile("tcp://(.+):(\\d{1,5})");
  private static final Pattern RANGE = Pattern.compile("(\\d{1,4})(?:-(\\d{1,4}))?");

  /** One subscription: a source, where to connect for it, and its replay endpoint or null. */
  public record Subscription(KvSource source, String endpoint, String replayEndpoint) {
    public Subscription {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(endpoint, "endpoint");
    }
  }

  public KvBridgeConfig {
    endpoints = List.copyOf(endpoints);
    replayEndpoints = replayEndpoints.stream().map(e -> e == null ? "" : e).toList();
    Objects.requireNonNull(topic, "topic");
    dataParallelRanks = List.copyOf(dataParallelRanks);
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(replayTimeout, "replayTimeout");
    Objects.requireNonNull(reconnectMin, "reconnectMin");
    Objects.requireNonNull(reconnectMax, "reconnectMax");
    Objects.requireNonNull(heartbeat, "heartbeat");
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    Objects.requireNonNull(metricsHost, "metricsHost");
    Objects.requireNonNull(resumeTimeout, "resumeTimeout");
    kafka = Map.copyOf(kafka);
    if (endpoints.isEmpty()) {
      throw new ConfigException(
          "PREFIXLOG_KV_ENDPOINTS is required (comma-separated tcp://host:port endpoints)");
    }
    if (!replayEndpoints.isEmpty() && replayEndpoints.size() != endpoints.size()) {
      throw new ConfigException(
          "PREFIXLOG_KV_REPLAY_ENDPOINTS has "
              + replayEndpoints.size()
              + " entries for "
              + endpoints.size()
              + " PREFIXLOG_KV_ENDPOINTS: give one per endpoint, '-' for none");
    }
    if (dataParallelRanks.isEmpty()) {
      throw new ConfigException("PREFIXLOG_KV_DP_RANKS names no rank");
    }
    if (reconnectMax.compareTo(reconnectMin) < 0) {
      throw new ConfigException(
          "PREFIXLOG_KV_RECONNECT_MAX ("
              + reconnectMax
              + ") must be at least PREFIXLOG_KV_RECONNECT_MIN ("
              + reconnectMin
              + ")");
    }
    for (String endpoint : endpoints) {
      for (int rank : dataParallelRanks) {
        offsetEndpoint("PREFIXLOG_KV_ENDPOINTS", endpoint, rank);
      }
    }
    for (String endpoint : replayEndpoints) {
      if (!endpoint.isEmpty()) {
        for (int rank : dataParallelRanks) {
          offsetEndpoint("PREFIXLOG_KV_REPLAY_ENDPOINTS", endpoint, rank);
        }
      }
    }
  }

  /** Reads and validates every setting. */
  public static KvBridgeConfig fromSettings(Settings s) {
    return new KvBridgeConfig(
        list(s.string("PREFIXLOG_KV_ENDPOINTS", "")),
        replayList(s.string("PREFIXLOG_KV_REPLAY_ENDPOINTS", "")),
        s.string("PREFIXLOG_KV_TOPIC", ""),
        ranks(s.string("PREFIXLOG_KV_DP_RANKS", "0")),
        s.string("PREFIXLOG_BOOTSTRAP_SERVERS", DEFAULT_BOOTSTRAP),
        s.string("PREFIXLOG_TOPIC_PREFIX", Topics.DEFAULT_PREFIX),
        positive(s, "PREFIXLOG_KV_REPLAY_TIMEOUT", Duration.ofSeconds(5)),
        s.integer("PREFIXLOG_KV_QUEUE_RECORDS", 10_000, 2, 10_000_000),
        s.bytes("PREFIXLOG_KV_QUEUE_BYTES", 64L << 20, 1L << 20, 16L << 30),
        positive(s, "PREFIXLOG_KV_RECONNECT_MIN", Duration.ofMillis(100)),
        positive(s, "PREFIXLOG_KV_RECONNECT_MAX", Duration.ofSeconds(10)),
        s.duration("PREFIXLOG_KV_HEARTBEAT", Duration.ofSeconds(10)),
        positive(s, "PREFIXLOG_KV_HANDSHAKE_TIMEOUT", Duration.ofSeconds(2)),
        s.integer("PREFIXLOG_KV_RECEIVE_HWM", 100_000, 0, Integer.MAX_VALUE),
        s.bytes("PREFIXLOG_KV_MAX_MESSAGE_BYTES", 64L << 20, 1024, 1L << 31),
        s.string("PREFIXLOG_METRICS_HOST", "127.0.0.1"),
        s.integer("PREFIXLOG_METRICS_PORT", DEFAULT_METRICS_PORT, -1, 65535),
        s.duration("PREFIXLOG_KV_RESUME_TIMEOUT", Duration.ofSeconds(30)),
        KafkaPassThrough.read(s));
  }

  /** The defaults, with overrides given by environment-variable name. */
  public static KvBridgeConfig defaults(Map<String, String> overrides) {
    return fromSettings(Settings.of(overrides));
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix);
  }

  /** Every subscription: each endpoint × each rank, in configuration order. */
  public List<Subscription> subscriptions() {
    List<Subscription> subscriptions = new ArrayList<>();
    for (int i = 0; i < endpoints.size(); i++) {
      String replay = replayEndpoints.isEmpty() ? "" : replayEndpoints.get(i);
      for (int rank : dataParallelRanks) {
        String endpoint = offsetEndpoint("PREFIXLOG_KV_ENDPOINTS", endpoints.get(i), rank);
        subscriptions.add(
            new Subscription(
                KvSource.of(endpoint, rank, topic),
                endpoint,
                replay.isEmpty()
                    ? null
                    : offsetEndpoint("PREFIXLOG_KV_REPLAY_ENDPOINTS", replay, rank)));
      }
    }
    return List.copyOf(subscriptions);
  }

  /**
   * The endpoint of data-parallel rank {@code rank}, as vLLM's {@code offset_endpoint_port}
   * computes it.
   */
  static String offsetEndpoint(String key, String endpoint, int rank) {
    if (endpoint.startsWith("tcp://")) {
      Matcher m = TCP.matcher(endpoint);
      if (!m.matches() || m.group(1).contains("*") || m.group(1).contains("|")) {
        throw new ConfigException(
            key + "=" + endpoint + ": expected tcp://host:port with a host to connect to");
      }
      int port = Integer.parseInt(m.group(2)) + rank;
      if (port < 1 || port > 65535) {
        throw new ConfigException(
            key + "=" + endpoint + ": port + data-parallel rank " + rank + " is beyond 65535");
      }
      return "tcp://" + m.group(1) + ":" + port;
    }
    if (endpoint.startsWith("inproc://") && endpoint.length() > "inproc://".length()) {
      return rank == 0 ? endpoint : endpoint + "_dp" + rank;
    }
    if (endpoint.startsWith("ipc://") && endpoint.length() > "ipc://".length()) {
      if (rank != 0) {
        throw new ConfigException(
            key + "=" + endpoint + ": an ipc:// endpoint has no data-parallel rank " + rank);
      }
      return endpoint;
    }
    throw new ConfigException(
        key + "=" + endpoint + ": expected tcp://host:port, ipc://path or inproc://name");
  }

  private static List<String> list(String value) {
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    return items;
  }

  private static List<String> replayList(String value) {
    if (value.isBlank()) {
      return List.of();
    }
    List<String> items = new ArrayList<>();
    for (String item : value.split(",", -1)) {
      String trimmed = item.trim();
      items.add(trimmed.equals("-") ? "" : trimmed);
    }
    return items;
  }

  private static List<Integer> ranks(String value) {
    TreeSet<Integer> ranks = new TreeSet<>();
    for (String item : value.split(",")) {
      Matcher m = RANGE.matcher(item.trim());
      if (!m.matches()) {
        throw new ConfigException(
            "PREFIXLOG_KV_DP_RANKS=" + value + ": expected ranks and ranges such as 0-3 or 0,2,5");
      }
      int from = Integer.parseInt(m.group(1));
      int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
      if (to < from) {
        throw new ConfigException(
            "PREFIXLOG_KV_DP_RANKS=" + value + ": the range " + item.trim() + " is empty");
      }
      for (int rank = from; rank <= to; rank++) {
        ranks.add(rank);
      }
    }
    return List.copyOf(ranks);
  }

  private static Duration positive(Settings s, String key, Duration defaultValue) {
    Duration value = s.duration(key, defaultValue);
    if (value.isZero()) {
      throw new ConfigException(key + "=0: expected a duration above zero, such as 100ms");
    }
    return value;
  }
}
