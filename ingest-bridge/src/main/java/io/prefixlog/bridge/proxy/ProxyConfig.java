package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.config.UnsafeDefaults;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.Topics;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every setting of the capture proxy, immutable and validated on construction. {@link
 * #fromSettings} reads them from environment variables (the names in the README's table); {@code
 * PREFIXLOG_KAFKA_*} settings pass through to the producer ({@code
 * PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes {@code security.protocol}). The {@code with…} methods
 * return a copy with one setting changed (tests, the launcher).
 */
public final class ProxyConfig {
  public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";
  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 8088;
  public static final int DEFAULT_METRICS_PORT = 9465;

  /**
   * The publisher's default wake-up interval under load. Each wake-up of the publisher (and, after
   * it, of the producer's sender and the broker) takes a core the event loops may need: waking once
   * per 50 ms instead of once per 10 ms (with a 5 ms instead of 20 ms linger) cut the producer
   * thread's CPU per event by ~40 % and the produce requests 5-fold (ProxyBenchmark), at the price
   * of events reaching Kafka up to 50 ms later, which nothing waits for.
   */
  public static final Duration DEFAULT_PUBLISH_INTERVAL = Duration.ofMillis(50);

  /**
   * One event loop per core by default: with one loop, an exchange's event waits behind whatever
   * the loop is doing for another connection; with one per core, another loop takes it (at 10
   * clients on 2 cores, 2 loops took the added p50 from +0.43–0.61 ms to about +0.3 ms in
   * ProxyBenchmark).
   */
  public static final int DEFAULT_EVENT_LOOPS =
      Math.max(1, Math.min(256, Runtime.getRuntime().availableProcessors()));

  /** The longest publish interval accepted: longer only lets the queue fill for nothing. */
  static final Duration MAX_PUBLISH_INTERVAL = Duration.ofSeconds(1);

  /** Headers captured by default: forwarding headers and the request id (plus session headers). */
  public static final List<String> DEFAULT_CAPTURE_HEADERS =
      List.of(
          "x-request-id",
          "x-forwarded-for",
          "x-forwarded-proto",
          "x-forwarded-host",
          "x-real-ip",
          "forwarded",
          "openai-organization",
          "openai-project");

  /** How the client address is written into the event. */
  public enum ClientAddrMode {
    /** As the proxy saw it. */
    FULL,
    /** IPv4 to its /24, IPv6 to its /48 network. */
    TRUNCATE,
    /** A keyed hash (the session secret), so equal addresses stay comparable. */
    HASH,
    /** Left out. */
    OMIT
  }

  private final URI upstream;
  private final String listenHost;
  private final int listenPort;
  private final String bootstrapServers;
  private final String topicPrefix;
  private final String sessionSecret;
  private final List<String> sessionHeaders;
  private final Set<String> captureHeaders;
  private final ClientAddrMode clientAddrMode;
  private final long maxBodyBytes;
  private final Duration connectTimeout;
  private final Duration upstreamIdleTimeout;
  private final int maxUpstreamConnections;
  private final Duration upstreamKeepAlive;
  private final int eventLoops;
  private final boolean setSessionHeader;
  private final boolean forwardedHeaders;
  private final int queueEvents;
  private final long queueBytes;
  private final Duration publishInterval;
  private final Path spillDir;
  private final long spillMaxBytes;
  private final long spillSegmentBytes;
  private final Duration retryInterval;
  private final Duration spillFsyncInterval;
  private final String ingestToken;
  private final long ingestMaxBytes;
  private final int ingestMaxConcurrent;
  private final int maxClientConnections;
  private final Duration headerTimeout;
  private final Duration clientIdleTimeout;
  private final Duration drainTimeout;
  private final String metricsHost;
  private final int metricsPort;
  private final boolean metricsHistograms;
  private final Map<String, String> kafka;

  private ProxyConfig(Builder b) {
    this.upstream = upstream(b.upstream);
    this.listenHost = requireText("PREFIXLOG_PROXY_HOST", b.listenHost);
    this.listenPort = port("PREFIXLOG_PROXY_PORT", b.listenPort, 0);
    this.bootstrapServers = requireText("PREFIXLOG_BOOTSTRAP_SERVERS", b.bootstrapServers);
    this.topicPrefix = Objects.requireNonNull(b.topicPrefix, "topicPrefix");
    this.sessionSecret = Objects.requireNonNull(b.sessionSecret, "sessionSecret");
    if (sessionSecret.getBytes(StandardCharsets.UTF_8).length < 16) {
      throw new ConfigException(
          "PREFIXLOG_SESSION_SECRET: expected at least 16 bytes, got "
              + sessionSecret.getBytes(StandardCharsets.UTF_8).length);
    }
    UnsafeDefaults.refuseBeyondLoopback(
        "PREFIXLOG_SESSION_SECRET",
        sessionSecret,
        listenHost,
        "PREFIXLOG_PROXY_HOST=" + listenHost,
        "Set it to a random value of at least 16 bytes (openssl rand -hex 32;"
            + " bin/prefixlog-compose-env writes one for docker-compose), or listen on 127.0.0.1.");
    this.sessionHeaders = headerNames("PREFIXLOG_SESSION_HEADERS", b.sessionHeaders);
    List<String> capture = headerNames("PREFIXLOG_CAPTURE_HEADERS", b.captureHeaders);
    for (String name : capture) {
      if (HeaderPolicy.isSecret(name)) {
        throw new ConfigException(
            "PREFIXLOG_CAPTURE_HEADERS names '"
                + name
                + "', a credential header: Authorization, API-key, token, secret and cookie"
                + " headers are never captured");
      }
    }
    for (String name : sessionHeaders) {
      if (HeaderPolicy.isSecret(name)) {
        throw new ConfigException(
            "PREFIXLOG_SESSION_HEADERS names '" + name + "', a credential header");
      }
    }
    this.captureHeaders = Set.copyOf(new LinkedHashSet<>(capture));
    this.clientAddrMode = Objects.requireNonNull(b.clientAddrMode, "clientAddrMode");
    this.maxBodyBytes = range("PREFIXLOG_MAX_BODY_BYTES", b.maxBodyBytes, 1, 1L << 30);
    this.connectTimeout = positive("PREFIXLOG_PROXY_CONNECT_TIMEOUT", b.connectTimeout);
    this.upstreamIdleTimeout = positive("PREFIXLOG_PROXY_UPSTREAM_TIMEOUT", b.upstreamIdleTimeout);
    this.maxUpstreamConnections =
        (int) range("PREFIXLOG_PROXY_MAX_CONNECTIONS", b.maxUpstreamConnections, 1, 100_000);
    this.upstreamKeepAlive = positive("PREFIXLOG_PROXY_KEEPALIVE_TIMEOUT", b.upstreamKeepAlive);
    this.eventLoops = (int) range("PREFIXLOG_PROXY_EVENT_LOOPS", b.eventLoops, 1, 256);
    this.setSessionHeader = b.setSessionHeader;
    this.forwardedHeaders = b.forwardedHeaders;
    this.queueEvents = (int) range("PREFIXLOG_PROXY_QUEUE_EVENTS", b.queueEvents, 1, 10_000_000);
    this.queueBytes = range("PREFIXLOG_PROXY_QUEUE_BYTES", b.queueBytes, 1 << 20, 64L << 30);
    this.publishInterval = publishInterval(b.publishInterval);
    this.spillDir = b.spillDir;
    this.spillMaxBytes = range("PREFIXLOG_SPILL_MAX_BYTES", b.spillMaxBytes, 1 << 20, 1L << 50);
    this.spillSegmentBytes =
        range("PREFIXLOG_SPILL_SEGMENT_BYTES", b.spillSegmentBytes, 64 << 10, 1L << 31);
    if (spillSegmentBytes > spillMaxBytes) {
      throw new ConfigException(
          "PREFIXLOG_SPILL_SEGMENT_BYTES ("
              + spillSegmentBytes
              + ") must not exceed PREFIXLOG_SPILL_MAX_BYTES ("
              + spillMaxBytes
              + ")");
    }
    this.retryInterval = positive("PREFIXLOG_SPILL_RETRY_INTERVAL", b.retryInterval);
    if (b.spillFsyncInterval.isNegative()) {
      throw new ConfigException(
          "PREFIXLOG_SPILL_FSYNC_INTERVAL="
              + b.spillFsyncInterval
              + ": expected 0 (force every batch of appends) or a duration above zero");
    }
    this.spillFsyncInterval = b.spillFsyncInterval;
    this.ingestToken = b.ingestToken == null || b.ingestToken.isBlank() ? null : b.ingestToken;
    if (ingestToken != null && ingestToken.length() < 16) {
      throw new ConfigException(
          "PREFIXLOG_INGEST_TOKEN: expected at least 16 characters, got " + ingestToken.length());
    }
    if (ingestToken != null) {
      UnsafeDefaults.refuseBeyondLoopback(
          "PREFIXLOG_INGEST_TOKEN",
          ingestToken,
          listenHost,
          "PREFIXLOG_PROXY_HOST=" + listenHost,
          "Set it to a random value (openssl rand -hex 32), leave it unset to turn the ingest"
              + " endpoint off, or listen on 127.0.0.1.");
    }
    this.ingestMaxBytes = range("PREFIXLOG_INGEST_MAX_BYTES", b.ingestMaxBytes, 1024, 1L << 31);
    this.ingestMaxConcurrent =
        (int) range("PREFIXLOG_INGEST_MAX_CONCURRENT", b.ingestMaxConcurrent, 1, 1024);
    this.maxClientConnections =
        (int) range("PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS", b.maxClientConnections, 1, 1_000_000);
    this.headerTimeout = positive("PREFIXLOG_PROXY_HEADER_TIMEOUT", b.headerTimeout);
    this.clientIdleTimeout = positive("PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT", b.clientIdleTimeout);
    this.drainTimeout = positive("PREFIXLOG_PROXY_DRAIN_TIMEOUT", b.drainTimeout);
    this.metricsHost = requireText("PREFIXLOG_METRICS_HOST", b.metricsHost);
    this.metricsPort = port("PREFIXLOG_METRICS_PORT", b.metricsPort, -1);
    this.metricsHistograms = b.metricsHistograms;
    this.kafka = Map.copyOf(new TreeMap<>(b.kafka));
  }

  /** Reads and validates every setting; {@code PREFIXLOG_PROXY_UPSTREAM} is required. */
  public static ProxyConfig fromSettings(Settings s) {
    Builder b = new Builder();
    String upstream =
        s.required(
            "PREFIXLOG_PROXY_UPSTREAM", "the engine's base URL, such as http://127.0.0.1:8000");
    try {
      b.upstream = new URI(upstream);
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "PREFIXLOG_PROXY_UPSTREAM=" + upstream + ": not a URL (" + e.getReason() + ")");
    }
    b.listenHost = s.string("PREFIXLOG_PROXY_HOST", DEFAULT_HOST);
    b.listenPort = s.integer("PREFIXLOG_PROXY_PORT", DEFAULT_PORT, 0, 65535);
    b.bootstrapServers = s.string("PREFIXLOG_BOOTSTRAP_SERVERS", DEFAULT_BOOTSTRAP);
    b.topicPrefix = s.string("PREFIXLOG_TOPIC_PREFIX", Topics.DEFAULT_PREFIX);
    String secret = s.string("PREFIXLOG_SESSION_SECRET", null);
    b.sessionSecret = secret == null ? SessionKeyDeriver.DEV_SECRET : secret;
    b.sessionHeaders =
        list(s.string("PREFIXLOG_SESSION_HEADERS", String.join(",", b.sessionHeaders)));
    b.captureHeaders =
        list(s.string("PREFIXLOG_CAPTURE_HEADERS", String.join(",", b.captureHeaders)));
    String mode = s.string("PREFIXLOG_CLIENT_ADDR", "full");
    try {
      b.clientAddrMode = ClientAddrMode.valueOf(mode.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "PREFIXLOG_CLIENT_ADDR=" + mode + ": expected full, truncate, hash or omit");
    }
    b.maxBodyBytes = s.bytes("PREFIXLOG_MAX_BODY_BYTES", b.maxBodyBytes, 1, 1L << 30);
    b.connectTimeout = s.duration("PREFIXLOG_PROXY_CONNECT_TIMEOUT", b.connectTimeout);
    b.upstreamIdleTimeout = s.duration("PREFIXLOG_PROXY_UPSTREAM_TIMEOUT", b.upstreamIdleTimeout);
    b.maxUpstreamConnections =
        s.integer("PREFIXLOG_PROXY_MAX_CONNECTIONS", b.maxUpstreamConnections, 1, 100_000);
    b.upstreamKeepAlive = s.duration("PREFIXLOG_PROXY_KEEPALIVE_TIMEOUT", b.upstreamKeepAlive);
    b.eventLoops = s.integer("PREFIXLOG_PROXY_EVENT_LOOPS", b.eventLoops, 1, 256);
    b.setSessionHeader = s.bool("PREFIXLOG_PROXY_SET_SESSION_HEADER", b.setSessionHeader);
    b.forwardedHeaders = s.bool("PREFIXLOG_PROXY_FORWARDED_HEADERS", b.forwardedHeaders);
    b.queueEvents = s.integer("PREFIXLOG_PROXY_QUEUE_EVENTS", b.queueEvents, 1, 10_000_000);
    b.queueBytes = s.bytes("PREFIXLOG_PROXY_QUEUE_BYTES", b.queueBytes, 1 << 20, 64L << 30);
    b.publishInterval = s.duration("PREFIXLOG_PROXY_PUBLISH_INTERVAL", b.publishInterval);
    String spill = s.string("PREFIXLOG_SPILL_DIR", null);
    b.spillDir = spill == null ? null : Path.of(spill);
    b.spillMaxBytes = s.bytes("PREFIXLOG_SPILL_MAX_BYTES", b.spillMaxBytes, 1 << 20, 1L << 50);
    b.spillSegmentBytes =
        s.bytes("PREFIXLOG_SPILL_SEGMENT_BYTES", b.spillSegmentBytes, 64 << 10, 1L << 31);
    b.retryInterval = s.duration("PREFIXLOG_SPILL_RETRY_INTERVAL", b.retryInterval);
    b.spillFsyncInterval = s.duration("PREFIXLOG_SPILL_FSYNC_INTERVAL", b.spillFsyncInterval);
    b.ingestToken = s.string("PREFIXLOG_INGEST_TOKEN", null);
    b.ingestMaxBytes = s.bytes("PREFIXLOG_INGEST_MAX_BYTES", b.ingestMaxBytes, 1024, 1L << 31);
    b.ingestMaxConcurrent =
        s.integer("PREFIXLOG_INGEST_MAX_CONCURRENT", b.ingestMaxConcurrent, 1, 1024);
    b.maxClientConnections =
        s.integer("PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS", b.maxClientConnections, 1, 1_000_000);
    b.headerTimeout = s.duration("PREFIXLOG_PROXY_HEADER_TIMEOUT", b.headerTimeout);
    b.clientIdleTimeout = s.duration("PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT", b.clientIdleTimeout);
    b.drainTimeout = s.duration("PREFIXLOG_PROXY_DRAIN_TIMEOUT", b.drainTimeout);
    b.metricsHost = s.string("PREFIXLOG_METRICS_HOST", b.metricsHost);
    b.metricsPort = s.integer("PREFIXLOG_METRICS_PORT", DEFAULT_METRICS_PORT, -1, 65535);
    b.metricsHistograms = s.bool("PREFIXLOG_METRICS_HISTOGRAMS", b.metricsHistograms);
    b.kafka = KafkaPassThrough.read(s);
    return new ProxyConfig(b);
  }

  /**
   * The defaults for an upstream and a Kafka cluster: listens on 127.0.0.1:8088, metrics on 9465,
   * the development session secret, no spill, ingest endpoint disabled.
   */
  public static ProxyConfig defaults(URI upstream, String bootstrapServers) {
    Builder b = new Builder();
    b.upstream = Objects.requireNonNull(upstream, "upstream");
    b.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    return new ProxyConfig(b);
  }

  public ProxyConfig withListen(String host, int port) {
    return copy(
        b -> {
          b.listenHost = host;
          b.listenPort = port;
        });
  }

  public ProxyConfig withTopicPrefix(String prefix) {
    return copy(b -> b.topicPrefix = prefix);
  }

  public ProxyConfig withSessionSecret(String secret) {
    return copy(b -> b.sessionSecret = secret);
  }

  /** 0 picks a free port; -1 serves no metrics. */
  public ProxyConfig withMetricsPort(int port) {
    return copy(b -> b.metricsPort = port);
  }

  public ProxyConfig withMetricsHistograms(boolean record) {
    return copy(b -> b.metricsHistograms = record);
  }

  public ProxyConfig withMetricsHost(String host) {
    return copy(b -> b.metricsHost = host);
  }

  public ProxyConfig withUpstream(URI upstream) {
    return copy(b -> b.upstream = upstream);
  }

  public ProxyConfig withBootstrapServers(String bootstrapServers) {
    return copy(b -> b.bootstrapServers = bootstrapServers);
  }

  public ProxyConfig withMaxBodyBytes(long bytes) {
    return copy(b -> b.maxBodyBytes = bytes);
  }

  public ProxyConfig withTimeouts(Duration connect, Duration upstreamIdle) {
    return copy(
        b -> {
          b.connectTimeout = connect;
          b.upstreamIdleTimeout = upstreamIdle;
        });
  }

  public ProxyConfig withCaptureHeaders(List<String> names) {
    return copy(b -> b.captureHeaders = List.copyOf(names));
  }

  public ProxyConfig withSessionHeaders(List<String> names) {
    return copy(b -> b.sessionHeaders = List.copyOf(names));
  }

  public ProxyConfig withClientAddrMode(ClientAddrMode mode) {
    return copy(b -> b.clientAddrMode = mode);
  }

  public ProxyConfig withSetSessionHeader(boolean set) {
    return copy(b -> b.setSessionHeader = set);
  }

  public ProxyConfig withForwardedHeaders(boolean add) {
    return copy(b -> b.forwardedHeaders = add);
  }

  public ProxyConfig withQueue(int events, long bytes) {
    return copy(
        b -> {
          b.queueEvents = events;
          b.queueBytes = bytes;
        });
  }

  public ProxyConfig withPublishInterval(Duration interval) {
    return copy(b -> b.publishInterval = interval);
  }

  /** Spill to {@code dir} (null: drop what cannot be published), at most {@code maxBytes}. */
  public ProxyConfig withSpill(Path dir, long maxBytes, long segmentBytes) {
    return copy(
        b -> {
          b.spillDir = dir;
          b.spillMaxBytes = maxBytes;
          b.spillSegmentBytes = segmentBytes;
        });
  }

  public ProxyConfig withRetryInterval(Duration interval) {
    return copy(b -> b.retryInterval = interval);
  }

  /** How often spilled events are forced to disk: zero forces every batch of appends. */
  public ProxyConfig withSpillFsyncInterval(Duration interval) {
    return copy(b -> b.spillFsyncInterval = interval);
  }

  /** Enables the ingest endpoint with this bearer token; null disables it. */
  public ProxyConfig withIngestToken(String token) {
    return copy(b -> b.ingestToken = token);
  }

  public ProxyConfig withEventLoops(int eventLoops) {
    return copy(b -> b.eventLoops = eventLoops);
  }

  public ProxyConfig withDrainTimeout(Duration timeout) {
    return copy(b -> b.drainTimeout = timeout);
  }

  /** Client connection cap, head timeout and idle timeout (see their getters). */
  public ProxyConfig withClientLimits(int maxConnections, Duration header, Duration idle) {
    return copy(
        b -> {
          b.maxClientConnections = maxConnections;
          b.headerTimeout = header;
          b.clientIdleTimeout = idle;
        });
  }

  public ProxyConfig withIngestMaxConcurrent(int requests) {
    return copy(b -> b.ingestMaxConcurrent = requests);
  }

  /** Replaces the pass-through Kafka producer settings ({@code linger.ms}, …). */
  public ProxyConfig withKafka(Map<String, String> kafka) {
    return copy(b -> b.kafka = Map.copyOf(kafka));
  }

  public URI upstream() {
    return upstream;
  }

  public String listenHost() {
    return listenHost;
  }

  public int listenPort() {
    return listenPort;
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String topicPrefix() {
    return topicPrefix;
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix);
  }

  public String sessionSecret() {
    return sessionSecret;
  }

  /** True when no secret was configured and the development default is in use. */
  public boolean usesDevSecret() {
    return sessionSecret.equals(SessionKeyDeriver.DEV_SECRET);
  }

  public List<String> sessionHeaders() {
    return sessionHeaders;
  }

  public Set<String> captureHeaders() {
    return captureHeaders;
  }

  public ClientAddrMode clientAddrMode() {
    return clientAddrMode;
  }

  public long maxBodyBytes() {
    return maxBodyBytes;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration upstreamIdleTimeout() {
    return upstreamIdleTimeout;
  }

  public int maxUpstreamConnections() {
    return maxUpstreamConnections;
  }

  public Duration upstreamKeepAlive() {
    return upstreamKeepAlive;
  }

  public int eventLoops() {
    return eventLoops;
  }

  public boolean setSessionHeader() {
    return setSessionHeader;
  }

  public boolean forwardedHeaders() {
    return forwardedHeaders;
  }

  public int queueEvents() {
    return queueEvents;
  }

  public long queueBytes() {
    return queueBytes;
  }

  /**
   * How often, under load, the publisher thread wakes to encode and send what the event loops
   * queued meanwhile (zero: at every event).
   */
  public Duration publishInterval() {
    return publishInterval;
  }

  /** The spill directory, or null when events that cannot be published are dropped. */
  public Path spillDir() {
    return spillDir;
  }

  public long spillMaxBytes() {
    return spillMaxBytes;
  }

  public long spillSegmentBytes() {
    return spillSegmentBytes;
  }

  public Duration retryInterval() {
    return retryInterval;
  }

  /**
   * {@code PREFIXLOG_SPILL_FSYNC_INTERVAL}, default 0: spilled events are forced to disk after
   * every batch of appends (0), or at most once per this interval. A process crash loses no spilled
   * event either way; a power loss or kernel crash can lose the appends of the last interval.
   */
  public Duration spillFsyncInterval() {
    return spillFsyncInterval;
  }

  /** The ingest endpoint's bearer token, or null when the endpoint is disabled. */
  public String ingestToken() {
    return ingestToken;
  }

  public long ingestMaxBytes() {
    return ingestMaxBytes;
  }

  /**
   * {@code PREFIXLOG_INGEST_MAX_CONCURRENT}: ingest requests buffered at once (each up to {@code
   * PREFIXLOG_INGEST_MAX_BYTES}); one more is answered 503 with {@code Retry-After}.
   */
  public int ingestMaxConcurrent() {
    return ingestMaxConcurrent;
  }

  /**
   * {@code PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS}: client connections open at once, all event
   * loops together; one more is closed as it is accepted, counted.
   */
  public int maxClientConnections() {
    return maxClientConnections;
  }

  /**
   * {@code PREFIXLOG_PROXY_HEADER_TIMEOUT}: how long a new connection may take to send a complete
   * request head; after it the connection is closed.
   */
  public Duration headerTimeout() {
    return headerTimeout;
  }

  /**
   * {@code PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT}: how long a client may send nothing while the proxy
   * waits for it (a keep-alive connection between requests, a request body that stalls); waiting
   * for the engine's answer is the upstream timeout's business, not this one.
   */
  public Duration clientIdleTimeout() {
    return clientIdleTimeout;
  }

  public Duration drainTimeout() {
    return drainTimeout;
  }

  public String metricsHost() {
    return metricsHost;
  }

  public int metricsPort() {
    return metricsPort;
  }

  /** False: the latency histograms record nothing (counters and gauges stay). */
  public boolean metricsHistograms() {
    return metricsHistograms;
  }

  public Map<String, String> kafka() {
    return kafka;
  }

  @Override
  public String toString() {
    // Never the secret or the token.
    return "ProxyConfig[upstream="
        + upstream
        + ", listen="
        + listenHost
        + ":"
        + listenPort
        + ", bootstrapServers="
        + bootstrapServers
        + ", topicPrefix="
        + topicPrefix
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", spillDir="
        + spillDir
        + ", ingest="
        + (ingestToken == null ? "disabled" : "enabled")
        + "]";
  }

  private ProxyConfig copy(java.util.function.Consumer<Builder> change) {
    Builder b = new Builder(this);
    change.accept(b);
    return new ProxyConfig(b);
  }

  private static URI upstream(URI uri) {
    Objects.requireNonNull(uri, "upstream");
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ConfigException(
          "PREFIXLOG_PROXY_UPSTREAM=" + uri + ": expected an http:// or https:// URL");
    }
    if (uri.getHost() == null) {
      throw new ConfigException("PREFIXLOG_PROXY_UPSTREAM=" + uri + ": the URL names no host");
    }
    String path = uri.getRawPath();
    if ((path != null && !path.isEmpty() && !path.equals("/"))
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      throw new ConfigException(
          "PREFIXLOG_PROXY_UPSTREAM="
              + uri
              + ": give the engine's origin only (scheme, host, port); request paths are"
              + " forwarded unchanged");
    }
    return uri;
  }

  /** The upstream port, the scheme's default when the URL gives none. */
  int upstreamPort() {
    if (upstream.getPort() > 0) {
      return upstream.getPort();
    }
    return upstream.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  boolean upstreamTls() {
    return upstream.getScheme().equalsIgnoreCase("https");
  }

  private static String requireText(String key, String value) {
    if (value == null || value.isBlank()) {
      throw new ConfigException(key + " must not be empty");
    }
    return value;
  }

  private static int port(String key, int port, int min) {
    if (port < min || port > 65535) {
      throw new ConfigException(key + "=" + port + ": expected a port from " + min + " to 65535");
    }
    return port;
  }

  private static long range(String key, long value, long min, long max) {
    if (value < min || value > max) {
      throw new ConfigException(
          key + "=" + value + ": expected a value from " + min + " to " + max);
    }
    return value;
  }

  private static Duration publishInterval(Duration value) {
    Objects.requireNonNull(value, "PREFIXLOG_PROXY_PUBLISH_INTERVAL");
    if (value.isNegative() || value.compareTo(MAX_PUBLISH_INTERVAL) > 0) {
      throw new ConfigException(
          "PREFIXLOG_PROXY_PUBLISH_INTERVAL="
              + value.toMillis()
              + "ms: expected a duration from 0 (publish at every event) to "
              + MAX_PUBLISH_INTERVAL.toMillis()
              + "ms");
    }
    return value;
  }

  private static Duration positive(String key, Duration value) {
    Objects.requireNonNull(value, key);
    if (value.isZero() || value.isNegative()) {
      throw new ConfigException(key + "=" + value + ": expected a duration above zero, such as 5s");
    }
    return value;
  }

  private static List<String> headerNames(String key, List<String> names) {
    List<String> result = new ArrayList<>();
    for (String name : names) {
      String lower = name.trim().toLowerCase(Locale.ROOT);
      if (lower.isEmpty()) {
        continue;
      }
      if (!lower.matches("[0-9a-z!#$%&'*+.^_`|~-]+")) {
        throw new ConfigException(key + ": '" + name + "' is not an HTTP header name");
      }
      if (!result.contains(lower)) {
        result.add(lower);
      }
    }
    return List.copyOf(result);
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

  /** Mutable holder of the settings while a config is built; defaults here. */
  private static final class Builder {
    URI upstream;
    String listenHost = DEFAULT_HOST;
    int listenPort = DEFAULT_PORT;
    String bootstrapServers = DEFAULT_BOOTSTRAP;
    String topicPrefix = Topics.DEFAULT_PREFIX;
    String sessionSecret = SessionKeyDeriver.DEV_SECRET;
    List<String> sessionHeaders = SessionKeyDeriver.DEFAULT_HEADERS;
    List<String> captureHeaders = DEFAULT_CAPTURE_HEADERS;
    ClientAddrMode clientAddrMode = ClientAddrMode.FULL;
    long maxBodyBytes = 16L << 20;
    Duration connectTimeout = Duration.ofSeconds(5);
    Duration upstreamIdleTimeout = Duration.ofMinutes(10);
    int maxUpstreamConnections = 512;
    Duration upstreamKeepAlive = Duration.ofSeconds(60);
    int eventLoops = DEFAULT_EVENT_LOOPS;
    boolean setSessionHeader = false;
    boolean forwardedHeaders = true;
    int queueEvents = 10_000;
    long queueBytes = 256L << 20;
    Duration publishInterval = DEFAULT_PUBLISH_INTERVAL;
    Path spillDir;
    long spillMaxBytes = 1L << 30;
    long spillSegmentBytes = 64L << 20;
    Duration retryInterval = Duration.ofSeconds(1);
    Duration spillFsyncInterval = Duration.ZERO;
    String ingestToken;
    long ingestMaxBytes = 64L << 20;
    // Four bodies of up to 64 MiB being read and validated at once: 256 MiB at the most, whatever
    // the number of ingest clients.
    int ingestMaxConcurrent = 4;
    // Far above what one proxy in front of an engine serves (the engine batches a few hundred
    // requests), far below a default file descriptor limit; an idle connection costs a few KiB.
    int maxClientConnections = 4096;
    // A client on any real network sends its head in well under a second.
    Duration headerTimeout = Duration.ofSeconds(10);
    Duration clientIdleTimeout = Duration.ofSeconds(60);
    Duration drainTimeout = Duration.ofSeconds(10);
    String metricsHost = DEFAULT_HOST;
    int metricsPort = DEFAULT_METRICS_PORT;
    boolean metricsHistograms = true;
    Map<String, String> kafka = Map.of();

    Builder() {}

    Builder(ProxyConfig c) {
      upstream = c.upstream;
      listenHost = c.listenHost;
      listenPort = c.listenPort;
      bootstrapServers = c.bootstrapServers;
      topicPrefix = c.topicPrefix;
      sessionSecret = c.sessionSecret;
      sessionHeaders = c.sessionHeaders;
      captureHeaders = List.copyOf(c.captureHeaders);
      clientAddrMode = c.clientAddrMode;
      maxBodyBytes = c.maxBodyBytes;
      connectTimeout = c.connectTimeout;
      upstreamIdleTimeout = c.upstreamIdleTimeout;
      maxUpstreamConnections = c.maxUpstreamConnections;
      upstreamKeepAlive = c.upstreamKeepAlive;
      eventLoops = c.eventLoops;
      setSessionHeader = c.setSessionHeader;
      forwardedHeaders = c.forwardedHeaders;
      queueEvents = c.queueEvents;
      queueBytes = c.queueBytes;
      publishInterval = c.publishInterval;
      spillDir = c.spillDir;
      spillMaxBytes = c.spillMaxBytes;
      spillSegmentBytes = c.spillSegmentBytes;
      retryInterval = c.retryInterval;
      spillFsyncInterval = c.spillFsyncInterval;
      ingestToken = c.ingestToken;
      ingestMaxBytes = c.ingestMaxBytes;
      ingestMaxConcurrent = c.ingestMaxConcurrent;
      maxClientConnections = c.maxClientConnections;
      headerTimeout = c.headerTimeout;
      clientIdleTimeout = c.clientIdleTimeout;
      drainTimeout = c.drainTimeout;
      metricsHost = c.metricsHost;
      metricsPort = c.metricsPort;
      metricsHistograms = c.metricsHistograms;
      kafka = c.kafka;
    }
  }
}
