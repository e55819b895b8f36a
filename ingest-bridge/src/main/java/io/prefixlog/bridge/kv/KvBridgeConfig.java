package io.prefixlog.bridge.kv;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.kv.KvDecodeLimits;
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
import java.util.stream.Collectors;

/**
 * Every setting of the KV-event subscriber, validated on construction. Each is declared once below
 * as a {@link ConfigKey}; {@link #DEFINITION} lists them for parsing, the README's table and {@code
 * --help}. {@link #fromSettings} reads them from environment variables or a properties file named
 * by {@code PREFIXLOG_CONFIG_FILE}; {@code PREFIXLOG_KAFKA_*} settings pass through to the producer
 * ({@code PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes {@code security.protocol}).
 */
public final class KvBridgeConfig {
  public static final int DEFAULT_METRICS_PORT = 9465;

  /**
   * Complete reply messages ZMQ holds for a replay before it stops reading the engine's ROUTER
   * (whose own queue then holds the rest, or drops it: a gap). The replay decodes one message at a
   * time on the thread that reads them, so one ahead is enough, and the bound keeps a replay of the
   * engine's whole buffer inside {@link #RECEIVE_MEMORY}.
   */
  static final int REPLAY_HWM = 1;

  /** The most heap a value {@link KvDecodeLimits} counts may take once decoded. */
  private static final long BYTES_PER_DECODED_VALUE = 64;

  private static final Pattern TCP = Pattern.compile("tcp://(.+):(\\d{1,5})");
  private static final Pattern RANGE = Pattern.compile("(\\d{1,4})(?:-(\\d{1,4}))?");

  public static final ConfigKey<List<String>> ENDPOINTS =
      ConfigKey.of("PREFIXLOG_KV_ENDPOINTS", new Endpoints(false))
          .required("comma-separated tcp://host:port endpoints")
          .doc(
              "the engines' ZMQ PUB endpoints (`tcp://host:port`, `ipc://path` or"
                  + " `inproc://name`), comma separated, the address of data-parallel rank 0 of"
                  + " each engine; the bridge connects to them");

  public static final ConfigKey<List<String>> REPLAY_ENDPOINTS =
      ConfigKey.of("PREFIXLOG_KV_REPLAY_ENDPOINTS", new Endpoints(true))
          .defaultValue(List.of())
          .documentedDefault("none")
          .doc(
              "the engines' ROUTER replay endpoints, one per entry of `PREFIXLOG_KV_ENDPOINTS` in"
                  + " the same order, `-` for an engine without one; rank r uses its port + r like"
                  + " the PUB endpoint");

  public static final ConfigKey<String> TOPIC =
      ConfigKey.of("PREFIXLOG_KV_TOPIC", ConfigTypes.text())
          .defaultValue("")
          .doc(
              "the ZMQ topic subscribed to (vLLM's default is empty). ZMQ filters by prefix; a"
                  + " message whose topic frame is not exactly this one is dead-lettered"
                  + " (`unexpected_topic`)");

  public static final ConfigKey<List<Integer>> DP_RANKS =
      ConfigKey.of("PREFIXLOG_KV_DP_RANKS", new Ranks())
          .defaultValue(List.of(0))
          .doc(
              "the data-parallel ranks of every engine, as a list and/or ranges (`0-3`,"
                  + " `0,2,5`); rank r of `tcp://h:P` is at `tcp://h:(P+r)` and of `inproc://x` at"
                  + " `inproc://x_dp<r>` (vLLM's `offset_endpoint_port`); an `ipc://` endpoint"
                  + " allows rank 0 only");

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = CommonKeys.BOOTSTRAP_SERVERS;

  public static final ConfigKey<String> TOPIC_PREFIX =
      CommonKeys.TOPIC_PREFIX.doc(
          "batches go to `<prefix>kv.events`, dead letters to `<prefix>dlq`");

  public static final ConfigKey<Duration> REPLAY_TIMEOUT =
      ConfigKey.of("PREFIXLOG_KV_REPLAY_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(5))
          .doc("the most one replay may take; what has not arrived by then is a gap");

  public static final ConfigKey<Integer> QUEUE_RECORDS =
      ConfigKey.of("PREFIXLOG_KV_QUEUE_RECORDS", ConfigTypes.integer(2, 10_000_000))
          .defaultValue(10_000)
          .doc("records the hand-off to the producer holds at most");

  public static final ConfigKey<Long> QUEUE_BYTES =
      ConfigKey.of("PREFIXLOG_KV_QUEUE_BYTES", ConfigTypes.size(1L << 20, 16L << 30))
          .defaultValue(64L << 20)
          .doc("bytes the hand-off to the producer holds at most");

  public static final ConfigKey<Duration> RECONNECT_MIN =
      ConfigKey.of("PREFIXLOG_KV_RECONNECT_MIN", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMillis(100))
          .doc("the first reconnect delay");

  public static final ConfigKey<Duration> RECONNECT_MAX =
      ConfigKey.of("PREFIXLOG_KV_RECONNECT_MAX", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(10))
          .doc("the longest reconnect delay (it doubles from the first up to this)");

  public static final ConfigKey<Duration> HEARTBEAT =
      ConfigKey.of("PREFIXLOG_KV_HEARTBEAT", ConfigTypes.duration("no heartbeat"))
          .defaultValue(Duration.ofSeconds(10))
          .doc(
              "ZMTP heartbeat interval towards the engine, so that a vanished engine is noticed"
                  + " and reconnected (timeout 3×); `0` disables");

  public static final ConfigKey<Duration> HANDSHAKE_TIMEOUT =
      ConfigKey.of("PREFIXLOG_KV_HANDSHAKE_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(2))
          .doc("a connection not through its ZMTP handshake by then is made again");

  public static final ConfigKey<Integer> RECEIVE_HWM =
      ConfigKey.of("PREFIXLOG_KV_RECEIVE_HWM", ConfigTypes.integer(1, 1 << 20))
          .defaultValue(4)
          .doc(
              "complete messages ZMQ holds per subscription before it stops reading the"
                  + " connection (the engine's PUB then drops, a gap); the subscriber reads them at"
                  + " once into its receive memory, so few are enough. Each counts as"
                  + " `PREFIXLOG_KV_MAX_MESSAGE_BYTES` in `PREFIXLOG_KV_RECEIVE_MEMORY`");

  public static final ConfigKey<Long> MAX_MESSAGE_BYTES =
      ConfigKey.of("PREFIXLOG_KV_MAX_MESSAGE_BYTES", ConfigTypes.size(1024, 1L << 31))
          .defaultValue(16L << 20)
          .doc(
              "a larger frame drops the connection (ZMQ's `MAXMSGSIZE`). The default holds a"
                  + " batch with a 1M-token prompt's BlockStored about twice: 65,536 hashes of up"
                  + " to 34 bytes and a million token ids of up to 5 bytes, about 7 MiB");

  public static final ConfigKey<Long> RECEIVE_MEMORY =
      ConfigKey.of("PREFIXLOG_KV_RECEIVE_MEMORY", ConfigTypes.size(1L << 20, 1L << 40))
          .defaultValue(256L << 20)
          .doc(
              "heap the subscriber may hold for what it receives, all subscriptions together,"
                  + " each an equal share: what ZMQ may buffer (`PREFIXLOG_KV_RECEIVE_HWM` + 1"
                  + " frames of `PREFIXLOG_KV_MAX_MESSAGE_BYTES`), with replay endpoints what a"
                  + " replay may buffer (2 such frames), one decoded batch"
                  + " (`PREFIXLOG_KV_MAX_VALUES_PER_BATCH` × 64 bytes), and the rest for messages"
                  + " waiting for their turn, at least one of the largest; a message that does not"
                  + " fit is dropped (`prefixlog_kv_receive_drops_total`, its number a gap). A"
                  + " configuration whose worst case exceeds it is refused at start");

  public static final ConfigKey<Integer> MAX_HASHES_PER_EVENT =
      ConfigKey.of("PREFIXLOG_KV_MAX_HASHES_PER_EVENT", ConfigTypes.integer(1, 1 << 24))
          .defaultValue(KvDecodeLimits.DEFAULT_MAX_HASHES_PER_EVENT)
          .doc(
              "the most block hashes one event may name; a batch with an event naming more is"
                  + " refused before its hashes are read (dead-lettered `too_many_hashes`, its"
                  + " number a gap). An event names the blocks of one request, its tokens over the"
                  + " block size: the default holds a 1M-token context in vLLM's 16-token blocks");

  public static final ConfigKey<Integer> MAX_VALUES_PER_BATCH =
      ConfigKey.of("PREFIXLOG_KV_MAX_VALUES_PER_BATCH", ConfigTypes.integer(1, 1 << 30))
          .defaultValue((int) KvDecodeLimits.DEFAULT_MAX_VALUES_PER_BATCH)
          .doc(
              "the most values one batch may keep once decoded: its events, block hashes and"
                  + " `extra_keys` elements, about 64 bytes of heap each at most (a one-byte hash"
                  + " becomes about 60); a batch keeping more is refused as it is read"
                  + " (dead-lettered `batch_too_large`, its number a gap). The default, about"
                  + " 64 MiB per source at once, holds a scheduler step that stores 65,536 blocks"
                  + " and evicts as many about three times over");

  public static final ConfigKey<String> METRICS_HOST = CommonKeys.METRICS_HOST;

  public static final ConfigKey<Integer> METRICS_PORT =
      CommonKeys.metricsPort(DEFAULT_METRICS_PORT);

  public static final ConfigKey<HostCheck> ALLOWED_HOSTS = HostCheck.SETTING;

  public static final ConfigKey<Duration> RESUME_TIMEOUT =
      ConfigKey.of("PREFIXLOG_KV_RESUME_TIMEOUT", ConfigTypes.duration("skip the read"))
          .defaultValue(Duration.ofSeconds(30))
          .doc(
              "the most reading back where each source's log in `kv.events` stands may take when"
                  + " the bridge starts; past it, or with `0`, every source starts as seen for the"
                  + " first time (a marker, then what the engine still buffers)");

  public static final ConfigKey<Boolean> ALLOW_WEAKER_DELIVERY = CommonKeys.ALLOW_WEAKER_DELIVERY;

  /** Every setting of the KV-event subscriber, in the README's order. */
  public static final ConfigDef DEFINITION =
      CommonKeys.withKafka(
          "KV-event subscriber",
          List.of(
              ENDPOINTS,
              REPLAY_ENDPOINTS,
              TOPIC,
              DP_RANKS,
              BOOTSTRAP_SERVERS,
              TOPIC_PREFIX,
              REPLAY_TIMEOUT,
              QUEUE_RECORDS,
              QUEUE_BYTES,
              RECONNECT_MIN,
              RECONNECT_MAX,
              HEARTBEAT,
              HANDSHAKE_TIMEOUT,
              RECEIVE_HWM,
              MAX_MESSAGE_BYTES,
              RECEIVE_MEMORY,
              MAX_HASHES_PER_EVENT,
              MAX_VALUES_PER_BATCH,
              METRICS_HOST,
              METRICS_PORT,
              ALLOWED_HOSTS,
              RESUME_TIMEOUT,
              ALLOW_WEAKER_DELIVERY));

  /** One subscription: a source, where to connect for it, and its replay endpoint or null. */
  public record Subscription(KvSource source, String endpoint, String replayEndpoint) {
    public Subscription {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(endpoint, "endpoint");
    }
  }

  private final ConfigValues values;
  private final Map<String, String> kafka;

  private KvBridgeConfig(ConfigValues values, Map<String, String> kafka) {
    this.values = values;
    this.kafka = Map.copyOf(kafka);
    checkTogether();
  }

  /** Reads and validates every setting. */
  public static KvBridgeConfig fromSettings(Settings s) {
    return new KvBridgeConfig(DEFINITION.parse(s), KafkaPassThrough.read(s));
  }

  /** The defaults, with overrides given by environment-variable name. */
  public static KvBridgeConfig defaults(Map<String, String> overrides) {
    return fromSettings(Settings.of(overrides));
  }

  public List<String> endpoints() {
    return values.get(ENDPOINTS);
  }

  /** One per endpoint ({@code ""} for none), or empty when no engine has one. */
  public List<String> replayEndpoints() {
    return values.get(REPLAY_ENDPOINTS);
  }

  public String topic() {
    return values.get(TOPIC);
  }

  public List<Integer> dataParallelRanks() {
    return values.get(DP_RANKS);
  }

  public String bootstrapServers() {
    return values.get(BOOTSTRAP_SERVERS);
  }

  public String topicPrefix() {
    return values.get(TOPIC_PREFIX);
  }

  public Duration replayTimeout() {
    return values.get(REPLAY_TIMEOUT);
  }

  public int queueRecords() {
    return values.get(QUEUE_RECORDS);
  }

  public long queueBytes() {
    return values.get(QUEUE_BYTES);
  }

  public Duration reconnectMin() {
    return values.get(RECONNECT_MIN);
  }

  public Duration reconnectMax() {
    return values.get(RECONNECT_MAX);
  }

  /** Zero: no heartbeat. */
  public Duration heartbeat() {
    return values.get(HEARTBEAT);
  }

  public Duration handshakeTimeout() {
    return values.get(HANDSHAKE_TIMEOUT);
  }

  public int receiveHwm() {
    return values.get(RECEIVE_HWM);
  }

  public long maxMessageBytes() {
    return values.get(MAX_MESSAGE_BYTES);
  }

  /** Heap the subscriber may hold for what it receives, all subscriptions together. */
  public long receiveMemory() {
    return values.get(RECEIVE_MEMORY);
  }

  /**
   * What one subscription may hold of messages received and not yet handled: its share of {@link
   * #receiveMemory} less the worst case of ZMQ's buffers and of one decoded batch.
   */
  long receiveBufferBytes() {
    return receiveMemory() / subscriptions().size()
        - zmqWorstCase()
        - replayWorstCase()
        - decodedWorstCase();
  }

  /**
   * What a replay's DEALER may hold: {@link #REPLAY_HWM} complete messages and the frame its
   * decoder is filling; nothing without replay endpoints.
   */
  private long replayWorstCase() {
    return replayEndpoints().isEmpty() ? 0 : (REPLAY_HWM + 1L) * maxMessageBytes();
  }

  /**
   * What ZMQ may hold per subscription: the high-water mark's complete messages and the frame its
   * decoder is filling, which it allocates whole when the frame's length arrives. The receive loop
   * reads every frame as it comes, so the frames of an unfinished message do not pile up.
   */
  private long zmqWorstCase() {
    return (receiveHwm() + 1L) * maxMessageBytes();
  }

  private long decodedWorstCase() {
    return decodeLimits().maxValuesPerBatch() * BYTES_PER_DECODED_VALUE;
  }

  /** How much one decoded batch may keep. */
  public KvDecodeLimits decodeLimits() {
    return new KvDecodeLimits(values.get(MAX_HASHES_PER_EVENT), values.get(MAX_VALUES_PER_BATCH));
  }

  public String metricsHost() {
    return values.get(METRICS_HOST);
  }

  /** The names the metrics and health endpoint answers to. */
  public HostCheck allowedHosts() {
    return values.get(ALLOWED_HOSTS);
  }

  /** -1: no endpoint. */
  public int metricsPort() {
    return values.get(METRICS_PORT);
  }

  /** Zero: skip reading back where each source stands. */
  public Duration resumeTimeout() {
    return values.get(RESUME_TIMEOUT);
  }

  /** Producer settings passed through ({@code PREFIXLOG_KAFKA_*}). */
  public Map<String, String> kafka() {
    return kafka;
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix());
  }

  @Override
  public String toString() {
    return values.toString();
  }

  /**
   * The rules that tie settings together: one replay entry per endpoint, ranks every endpoint has,
   * receive memory for every subscription.
   */
  private void checkTogether() {
    List<String> endpoints = endpoints();
    List<String> replayEndpoints = replayEndpoints();
    if (!replayEndpoints.isEmpty() && replayEndpoints.size() != endpoints.size()) {
      throw new ConfigException(
          REPLAY_ENDPOINTS.name()
              + " has "
              + replayEndpoints.size()
              + " entries for "
              + endpoints.size()
              + " "
              + ENDPOINTS.name()
              + ": give one per endpoint, '-' for none");
    }
    if (reconnectMax().compareTo(reconnectMin()) < 0) {
      throw new ConfigException(
          RECONNECT_MAX.name()
              + " ("
              + ConfigTypes.formatDuration(reconnectMax())
              + ") must be at least "
              + RECONNECT_MIN.name()
              + " ("
              + ConfigTypes.formatDuration(reconnectMin())
              + ")");
    }
    for (String endpoint : endpoints) {
      for (int rank : dataParallelRanks()) {
        offsetEndpoint(ENDPOINTS.name(), endpoint, rank);
      }
    }
    for (String endpoint : replayEndpoints) {
      if (!endpoint.isEmpty()) {
        for (int rank : dataParallelRanks()) {
          offsetEndpoint(REPLAY_ENDPOINTS.name(), endpoint, rank);
        }
      }
    }
    checkReceiveMemory();
  }

  /**
   * ZMQ bounds what it buffers by messages only, so the worst case of a subscription is known only
   * as a product: refused here rather than met as an {@link OutOfMemoryError} in the JVM the proxy
   * shares.
   */
  private void checkReceiveMemory() {
    int subscriptions = endpoints().size() * dataParallelRanks().size();
    long perSubscription =
        zmqWorstCase() + replayWorstCase() + decodedWorstCase() + maxMessageBytes();
    if (perSubscription > receiveMemory() / subscriptions) {
      throw new ConfigException(
          RECEIVE_MEMORY.name()
              + " ("
              + ConfigTypes.formatSize(receiveMemory())
              + ") is less than "
              + subscriptions
              + " subscription(s) ("
              + ENDPOINTS.name()
              + " × "
              + DP_RANKS.name()
              + ") × "
              + ConfigTypes.formatSize(perSubscription)
              + ": each needs ("
              + RECEIVE_HWM.name()
              + " "
              + receiveHwm()
              + " + 2"
              + (replayWorstCase() > 0 ? " + " + (REPLAY_HWM + 1) + " for a replay" : "")
              + ") × "
              + MAX_MESSAGE_BYTES.name()
              + " "
              + ConfigTypes.formatSize(maxMessageBytes())
              + " + "
              + MAX_VALUES_PER_BATCH.name()
              + " "
              + decodeLimits().maxValuesPerBatch()
              + " × "
              + BYTES_PER_DECODED_VALUE
              + " bytes; raise it or lower those");
    }
  }

  /** Every subscription: each endpoint × each rank, in configuration order. */
  public List<Subscription> subscriptions() {
    List<String> endpoints = endpoints();
    List<String> replayEndpoints = replayEndpoints();
    List<Subscription> subscriptions = new ArrayList<>();
    for (int i = 0; i < endpoints.size(); i++) {
      String replay = replayEndpoints.isEmpty() ? "" : replayEndpoints.get(i);
      for (int rank : dataParallelRanks()) {
        String endpoint = offsetEndpoint(ENDPOINTS.name(), endpoints.get(i), rank);
        subscriptions.add(
            new Subscription(
                KvSource.of(endpoint, rank, topic()),
                endpoint,
                replay.isEmpty() ? null : offsetEndpoint(REPLAY_ENDPOINTS.name(), replay, rank)));
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

  /**
   * Endpoints, comma separated; with {@code replay}, {@code -} or an empty entry stands for an
   * engine without one (kept as {@code ""}, so that the entries stay aligned with the PUB ones).
   */
  private record Endpoints(boolean replay) implements ConfigType<List<String>> {
    @Override
    public List<String> parse(String key, String raw) {
      if (!replay) {
        List<String> endpoints = ConfigTypes.items(raw);
        if (endpoints.isEmpty()) {
          throw new ConfigException(
              key + " is required (comma-separated tcp://host:port endpoints)");
        }
        return endpoints;
      }
      List<String> items = new ArrayList<>();
      for (String item : raw.split(",", -1)) {
        String trimmed = item.trim();
        items.add(trimmed.equals("-") ? "" : trimmed);
      }
      return List.copyOf(items);
    }

    @Override
    public List<String> check(String key, List<String> value) {
      return value.stream().map(e -> e == null ? "" : e).toList();
    }

    @Override
    public String format(List<String> value) {
      return value.stream().map(e -> e.isEmpty() ? "-" : e).collect(Collectors.joining(","));
    }

    @Override
    public String describe() {
      return replay ? "endpoints or `-`, comma separated" : "endpoints, comma separated";
    }
  }

  /** Data-parallel ranks as a list and/or ranges: {@code 0-3}, {@code 0,2,5}. */
  private static final class Ranks implements ConfigType<List<Integer>> {
    @Override
    public List<Integer> parse(String key, String raw) {
      TreeSet<Integer> ranks = new TreeSet<>();
      for (String item : raw.split(",")) {
        Matcher m = RANGE.matcher(item.trim());
        if (!m.matches()) {
          throw new ConfigException(
              key + "=" + raw + ": expected ranks and ranges such as 0-3 or 0,2,5");
        }
        int from = Integer.parseInt(m.group(1));
        int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
        if (to < from) {
          throw new ConfigException(key + "=" + raw + ": the range " + item.trim() + " is empty");
        }
        for (int rank = from; rank <= to; rank++) {
          ranks.add(rank);
        }
      }
      return List.copyOf(ranks);
    }

    @Override
    public List<Integer> check(String key, List<Integer> value) {
      if (value.isEmpty()) {
        throw new ConfigException(key + " names no rank");
      }
      return List.copyOf(value);
    }

    @Override
    public String format(List<Integer> value) {
      return value.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    @Override
    public String describe() {
      return "ranks and ranges";
    }
  }
}
