package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.config.UnsafeDefaults;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every setting of the capture proxy, immutable and validated on construction, as one record per
 * concern: {@link ListenConfig}, {@link UpstreamConfig}, {@link CaptureConfig}, {@link
 * SamplingConfig}, {@link PublishConfig}, {@link SpillConfig}, {@link WarmUpConfig}, {@link
 * IngestConfig}, {@link ClientLimitsConfig} and {@link MetricsConfig}. Each declares its settings
 * as {@link ConfigKey}s (name, type and range, default, documentation), reads itself and checks
 * what ties its own settings together; {@link #DEFINITION} lists every key once, in the README's
 * order, and the README's table and {@code --help} are rendered from it. This class reads them all
 * ({@link #fromSettings}: environment variables; {@code PREFIXLOG_KAFKA_*} settings pass through to
 * the producer, {@code PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becoming {@code security.protocol}),
 * checks the rules that span two concerns (the credentials against the listen address), and {@link
 * #with} returns a copy with one setting changed (tests, the launcher).
 *
 * <p>A new setting is declared in its concern's record, placed in {@link #DEFINITION}, and read
 * where it is used, from the record that component is built from: nothing passes it along between.
 */
public final class ProxyConfig {
  /** Every setting of the capture proxy, in the README's order. */
  public static final ConfigDef DEFINITION =
      CommonKeys.withKafka(
          "capture proxy",
          List.of(
              UpstreamConfig.ORIGIN,
              ListenConfig.HOST,
              ListenConfig.PORT,
              PublishConfig.BOOTSTRAP_SERVERS,
              PublishConfig.TOPIC_PREFIX,
              CaptureConfig.MAX_BODY_BYTES,
              CaptureConfig.SESSION_SECRET,
              CaptureConfig.SESSION_HEADERS,
              CaptureConfig.CAPTURE_HEADERS,
              CaptureConfig.CLIENT_ADDR,
              CaptureConfig.RAW_EVENT_FORMAT,
              CaptureConfig.QUERY_CREDENTIALS,
              CaptureConfig.REDACT_FIELDS,
              CaptureConfig.REDACT_PATTERNS,
              CaptureConfig.TENANT,
              SamplingConfig.SESSIONS,
              SamplingConfig.SEED,
              SamplingConfig.KEEP_ERRORS,
              SamplingConfig.KEEP_MODELS,
              SamplingConfig.KEEP_PATHS,
              SamplingConfig.HASH_CHUNKS,
              SamplingConfig.CHUNK_SIZE_BYTES,
              SamplingConfig.CLIENT_RATE,
              SamplingConfig.CLIENT_BURST,
              UpstreamConfig.SET_SESSION_HEADER,
              UpstreamConfig.FORWARDED_HEADERS,
              UpstreamConfig.CONNECT_TIMEOUT,
              UpstreamConfig.IDLE_TIMEOUT,
              UpstreamConfig.MAX_CONNECTIONS,
              UpstreamConfig.RECEIVE_BUFFER,
              UpstreamConfig.KEEPALIVE_TIMEOUT,
              ListenConfig.EVENT_LOOPS,
              PublishConfig.QUEUE_EVENTS,
              PublishConfig.QUEUE_BYTES,
              CaptureConfig.MEMORY,
              PublishConfig.INTERVAL,
              WarmUpConfig.DURATION,
              WarmUpConfig.QUIET,
              PublishConfig.CAPTURE_PRIORITY,
              SpillConfig.DIR,
              SpillConfig.MAX_BYTES,
              SpillConfig.SEGMENT_BYTES,
              SpillConfig.RETRY_INTERVAL,
              SpillConfig.FSYNC_INTERVAL,
              SpillConfig.FORMAT,
              PublishConfig.MAX_CLOCK_SKEW,
              PublishConfig.MAX_CAPTURE_AGE,
              IngestConfig.TOKEN,
              IngestConfig.MAX_BYTES,
              IngestConfig.MAX_CONCURRENT,
              ClientLimitsConfig.MAX_CONNECTIONS,
              ClientLimitsConfig.HEADER_TIMEOUT,
              ClientLimitsConfig.IDLE_TIMEOUT,
              ClientLimitsConfig.MIN_BODY_RATE,
              ClientLimitsConfig.BODY_RATE_WINDOW,
              ClientLimitsConfig.BODY_DEADLINE,
              ListenConfig.DRAIN_TIMEOUT,
              MetricsConfig.HOST,
              MetricsConfig.PORT,
              MetricsConfig.HISTOGRAMS,
              MetricsConfig.ALLOWED_HOSTS,
              PublishConfig.ALLOW_WEAKER_DELIVERY));

  private final ConfigValues values;
  private final ListenConfig listen;
  private final UpstreamConfig upstream;
  private final CaptureConfig capture;
  private final SamplingConfig sampling;
  private final PublishConfig publish;
  private final SpillConfig spill;
  private final WarmUpConfig warmUp;
  private final IngestConfig ingest;
  private final ClientLimitsConfig clientLimits;
  private final MetricsConfig metrics;

  /** The records in the order their checks have always run, the cross-concern ones between. */
  private ProxyConfig(ConfigValues values, Map<String, String> kafka) {
    this.values = values;
    this.listen = ListenConfig.from(values);
    this.publish = PublishConfig.from(values, kafka);
    this.capture = CaptureConfig.from(values);
    refuseBeyondLoopback(
        CaptureConfig.SESSION_SECRET,
        capture.sessionSecret(),
        "Set it to a random value of at least 16 bytes (openssl rand -hex 32;"
            + " bin/prefixlog-compose-env writes one for docker-compose), or listen on 127.0.0.1.");
    this.spill = SpillConfig.from(values);
    this.ingest = IngestConfig.from(values);
    if (ingest.enabled()) {
      refuseBeyondLoopback(
          IngestConfig.TOKEN,
          ingest.token(),
          "Set it to a random value (openssl rand -hex 32), leave it unset to turn the ingest"
              + " endpoint off, or listen on 127.0.0.1.");
    }
    this.sampling = SamplingConfig.from(values);
    this.metrics = MetricsConfig.from(values);
    this.upstream = UpstreamConfig.from(values);
    this.warmUp = WarmUpConfig.from(values);
    this.clientLimits = ClientLimitsConfig.from(values);
  }

  /** Reads and validates every setting; {@code PREFIXLOG_PROXY_UPSTREAM} is required. */
  public static ProxyConfig fromSettings(Settings s) {
    return new ProxyConfig(DEFINITION.parse(s), KafkaPassThrough.read(s));
  }

  /**
   * The defaults for an upstream and a Kafka cluster: listens on 127.0.0.1:8088, metrics on 9465,
   * the development session secret, no spill, ingest endpoint disabled.
   */
  public static ProxyConfig defaults(URI upstream, String bootstrapServers) {
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    return fromSettings(
        Settings.of(
            Map.of(
                UpstreamConfig.ORIGIN.name(),
                upstream.toString(),
                PublishConfig.BOOTSTRAP_SERVERS.name(),
                bootstrapServers)));
  }

  /** A copy with {@code key} set to {@code value}, checked as if it had been read. */
  public <T> ProxyConfig with(ConfigKey<T> key, T value) {
    return withValues(values.with(key, value));
  }

  public ProxyConfig withListen(String host, int port) {
    return withValues(values.with(ListenConfig.HOST, host).with(ListenConfig.PORT, port));
  }

  public ProxyConfig withTimeouts(Duration connect, Duration upstreamIdle) {
    return withValues(
        values
            .with(UpstreamConfig.CONNECT_TIMEOUT, connect)
            .with(UpstreamConfig.IDLE_TIMEOUT, upstreamIdle));
  }

  /**
   * Spill to {@code dir} (null: drop what cannot be published), at most {@code maxBytes}. The three
   * are checked together once all are set (a segment may not exceed the bound).
   */
  public ProxyConfig withSpill(Path dir, long maxBytes, long segmentBytes) {
    return withValues(
        values
            .with(SpillConfig.DIR, dir)
            .with(SpillConfig.MAX_BYTES, maxBytes)
            .with(SpillConfig.SEGMENT_BYTES, segmentBytes));
  }

  /** Client connection cap, head timeout and idle timeout ({@link ClientLimitsConfig}). */
  public ProxyConfig withClientLimits(int maxConnections, Duration header, Duration idle) {
    return withValues(
        values
            .with(ClientLimitsConfig.MAX_CONNECTIONS, maxConnections)
            .with(ClientLimitsConfig.HEADER_TIMEOUT, header)
            .with(ClientLimitsConfig.IDLE_TIMEOUT, idle));
  }

  /**
   * A copy with {@code changed} values and the same Kafka pass-through: the values are checked
   * together again, as every setter's result must be.
   */
  private ProxyConfig withValues(ConfigValues changed) {
    return new ProxyConfig(changed, publish.kafka());
  }

  /** Replaces the pass-through Kafka producer settings ({@code linger.ms}, …). */
  public ProxyConfig withKafka(Map<String, String> kafka) {
    return new ProxyConfig(values, kafka);
  }

  /** The value of any setting of {@link #DEFINITION}. */
  public <T> T get(ConfigKey<T> key) {
    return values.get(key);
  }

  public ListenConfig listen() {
    return listen;
  }

  public UpstreamConfig upstream() {
    return upstream;
  }

  public CaptureConfig capture() {
    return capture;
  }

  public SamplingConfig sampling() {
    return sampling;
  }

  public PublishConfig publish() {
    return publish;
  }

  public SpillConfig spill() {
    return spill;
  }

  public WarmUpConfig warmUp() {
    return warmUp;
  }

  public IngestConfig ingest() {
    return ingest;
  }

  public ClientLimitsConfig clientLimits() {
    return clientLimits;
  }

  public MetricsConfig metrics() {
    return metrics;
  }

  /** Every setting; the secret and the token hidden. */
  @Override
  public String toString() {
    return values.toString();
  }

  /**
   * A credential that is the development default or a placeholder is refused unless the proxy
   * listens on loopback only: the one rule that spans the listen address and a credential.
   */
  private void refuseBeyondLoopback(ConfigKey<String> key, String value, String advice) {
    String host = listen.host();
    UnsafeDefaults.refuseBeyondLoopback(
        key.name(), value, host, ListenConfig.HOST.name() + "=" + host, advice);
  }
}
