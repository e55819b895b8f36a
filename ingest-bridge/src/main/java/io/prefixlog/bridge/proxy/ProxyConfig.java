package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.config.UnsafeDefaults;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.SessionSampler;
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
 * Every setting of the capture proxy, immutable and validated on construction. Each setting is
 * declared once below as a {@link ConfigKey} (name, type and range, default, documentation); {@link
 * #DEFINITION} lists them, and the README's table and {@code --help} are rendered from it. {@link
 * #fromSettings} reads them from environment variables; {@code PREFIXLOG_KAFKA_*} settings pass
 * through to the producer ({@code PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes {@code
 * security.protocol}). {@link #with} returns a copy with one setting changed (tests, the launcher).
 */
public final class ProxyConfig {
  public static final int DEFAULT_PORT = 8088;
  public static final int DEFAULT_METRICS_PORT = 9465;

  /** How a captured request is written to {@code requests.raw}. */
  public enum RawEventFormat {
    /** Version 2: a JSON header, then the body's exact bytes (no escaping, no base64). */
    FRAMED,
    /** Version 1: one JSON object, the body a string; what stream apps before framing read. */
    JSON
  }

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

  public static final ConfigKey<URI> UPSTREAM =
      ConfigKey.of("PREFIXLOG_PROXY_UPSTREAM", new UpstreamType())
          .required("the engine's base URL, such as http://127.0.0.1:8000")
          .documentedDefault("required for the proxy")
          .doc(
              "the engine's origin, `http://host:port` (or `https://`); request paths are"
                  + " forwarded unchanged");

  public static final ConfigKey<String> HOST =
      ConfigKey.of("PREFIXLOG_PROXY_HOST", ConfigTypes.text())
          .defaultValue("127.0.0.1")
          .doc("address the proxy listens on");

  public static final ConfigKey<Integer> PORT =
      ConfigKey.of("PREFIXLOG_PROXY_PORT", ConfigTypes.integer(0, 65535))
          .defaultValue(DEFAULT_PORT)
          .doc("port the proxy listens on (0: any free port)");

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = CommonKeys.BOOTSTRAP_SERVERS;

  public static final ConfigKey<String> TOPIC_PREFIX =
      CommonKeys.TOPIC_PREFIX.doc("events go to `<prefix>requests.raw`");

  public static final ConfigKey<Long> MAX_BODY_BYTES =
      ConfigKey.of("PREFIXLOG_MAX_BODY_BYTES", ConfigTypes.size(1, 1L << 30))
          .defaultValue(16L << 20)
          .doc(
              "capture limit (the stream app's too); longer bodies are forwarded whole and"
                  + " recorded truncated");

  public static final ConfigKey<String> SESSION_SECRET =
      ConfigKey.of("PREFIXLOG_SESSION_SECRET", ConfigTypes.text())
          .defaultValue(SessionKeyDeriver.DEV_SECRET)
          .documentedDefault("development secret, on a loopback `PREFIXLOG_PROXY_HOST` only")
          .secret()
          .doc(
              "HMAC key of session keys, ≥ 16 bytes; the same as `replay`'s. On any other address,"
                  + " unset, the development secret or a placeholder (`change-me`, `example`, …)"
                  + " is refused at start (exit 2, naming the variable)");

  public static final ConfigKey<List<String>> SESSION_HEADERS =
      ConfigKey.of("PREFIXLOG_SESSION_HEADERS", new HeaderNames())
          .defaultValue(SessionKeyDeriver.DEFAULT_HEADERS)
          .doc("session headers, in the order tried; credential headers are refused");

  public static final ConfigKey<List<String>> CAPTURE_HEADERS =
      ConfigKey.of("PREFIXLOG_CAPTURE_HEADERS", new HeaderNames())
          .defaultValue(
              List.of(
                  "x-request-id",
                  "x-forwarded-for",
                  "x-forwarded-proto",
                  "x-forwarded-host",
                  "x-real-ip",
                  "forwarded",
                  "openai-organization",
                  "openai-project"))
          .doc("headers captured (plus the session headers); credential headers are refused");

  public static final ConfigKey<ClientAddrMode> CLIENT_ADDR =
      ConfigKey.of("PREFIXLOG_CLIENT_ADDR", ConfigTypes.oneOf(ClientAddrMode.class))
          .defaultValue(ClientAddrMode.FULL)
          .doc(
              "`full`, `truncate` (IPv4 /24, IPv6 /48), `hash` (keyed with the session secret) or"
                  + " `omit`; applies to `client_addr` and to every address in the captured"
                  + " forwarding headers (`ClientAddresses.ADDRESS_HEADERS`: `X-Forwarded-For`,"
                  + " `X-Real-IP`, `Forwarded`'s `for=`/`by=`, `True-Client-IP`,"
                  + " `CF-Connecting-IP`, …; `omit` drops them). Events posted to the ingest"
                  + " endpoint are stored as the middleware wrote them");

  public static final ConfigKey<RawEventFormat> RAW_EVENT_FORMAT =
      ConfigKey.of("PREFIXLOG_RAW_EVENT_FORMAT", ConfigTypes.oneOf(RawEventFormat.class))
          .defaultValue(RawEventFormat.FRAMED)
          .doc(
              "how captured requests are written to `requests.raw`: `framed` (version 2: a JSON"
                  + " header, then the body's exact bytes, neither escaped nor base64; the stream"
                  + " app checks them where they lie) or `json` (version 1: one JSON object with"
                  + " the body as a string, the form kcat and middlewares write). Stream apps"
                  + " read both; set `json` while stream apps older than framing still run (a"
                  + " rolling upgrade: stream apps first, then bridges)");

  public static final ConfigKey<Double> SAMPLE_SESSIONS =
      ConfigKey.of("PREFIXLOG_SAMPLE_SESSIONS", ConfigTypes.decimal(0, 1))
          .defaultValue(1.0)
          .doc(
              "share of sessions whose request bodies are kept (1: every body). A session is kept"
                  + " when the first 53 bits of HMAC-SHA-256(`PREFIXLOG_SAMPLE_SEED`, session key),"
                  + " divided by 2^53, are below the share: every bridge and restart decides the"
                  + " same, a session is whole or absent. The other requests are sent as"
                  + " metadata-only events (`body_omitted: sampled_out`) with their chunk hashes");

  public static final ConfigKey<String> SAMPLE_SEED =
      ConfigKey.of("PREFIXLOG_SAMPLE_SEED", ConfigTypes.text())
          .defaultValue(SessionSampler.DEFAULT_SEED)
          .doc(
              "HMAC key of the session sampling draw; the same on every bridge (another seed"
                  + " draws another sample of the same share)");

  public static final ConfigKey<Boolean> SAMPLE_KEEP_ERRORS =
      ConfigKey.of("PREFIXLOG_SAMPLE_KEEP_ERRORS", ConfigTypes.bool())
          .defaultValue(true)
          .doc(
              "keep the body of every failed request (status ≥ 400, or no response) whatever its"
                  + " session's draw");

  public static final ConfigKey<List<String>> SAMPLE_KEEP_MODELS =
      ConfigKey.of("PREFIXLOG_SAMPLE_KEEP_MODELS", new Items())
          .defaultValue(List.of())
          .documentedDefault("none")
          .doc("models whose request bodies are always kept (the body's `model`, exact match)");

  public static final ConfigKey<List<String>> SAMPLE_KEEP_PATHS =
      ConfigKey.of("PREFIXLOG_SAMPLE_KEEP_PATHS", new Items())
          .defaultValue(List.of())
          .documentedDefault("none")
          .doc("request path prefixes whose bodies are always kept (`/v1/completions`)");

  public static final ConfigKey<Boolean> SAMPLE_HASH_CHUNKS =
      ConfigKey.of("PREFIXLOG_SAMPLE_HASH_CHUNKS", ConfigTypes.bool())
          .defaultValue(true)
          .doc(
              "hash a sampled-out body into chunk hashes on the publisher thread (not the"
                  + " request path), so `chunk.lookups` still covers every request; `false` sends"
                  + " metadata only");

  public static final ConfigKey<Long> CHUNK_SIZE_BYTES = CommonKeys.CHUNK_SIZE_BYTES;

  public static final ConfigKey<Boolean> SET_SESSION_HEADER =
      ConfigKey.of("PREFIXLOG_PROXY_SET_SESSION_HEADER", ConfigTypes.bool())
          .defaultValue(false)
          .doc("send `X-Session-ID: <session_key>` upstream when the client sent none");

  public static final ConfigKey<Boolean> FORWARDED_HEADERS =
      ConfigKey.of("PREFIXLOG_PROXY_FORWARDED_HEADERS", ConfigTypes.bool())
          .defaultValue(true)
          .doc("add `X-Forwarded-For`/`-Proto`/`-Host`");

  public static final ConfigKey<Duration> CONNECT_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_CONNECT_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(5))
          .doc("upstream connect timeout (→ 504)");

  public static final ConfigKey<Duration> UPSTREAM_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_UPSTREAM_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(10))
          .doc(
              "longest upstream silence, before the status or between chunks (→ 504, or a reset"
                  + " mid-stream)");

  /**
   * In all, not per event loop: each exchange with an engine connection may be one a client stops
   * reading, and each of those holds a few reads of the engine's stream (up to ~250 KiB with 16 KB
   * events; benchmarks/README.md, "Stalled clients"). The number of them is what the container's
   * memory must hold, so it must not grow with the host's cores: 1,024 of them fit the image's 2
   * GiB beside its heap. 512 per loop, as this was, made 4,096 of them (~1 GiB) on 8 cores.
   */
  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      ConfigKey.of("PREFIXLOG_PROXY_MAX_CONNECTIONS", ConfigTypes.integer(1, 100_000))
          .defaultValue(1024)
          .doc(
              "connections to the engine, all event loops together (each loop pools its share,"
                  + " at least one); exchanges beyond them wait for one. Each may be held by a"
                  + " client that stops reading, with up to ~250 KiB of the engine's stream, so"
                  + " this bounds that memory whatever the number of cores");

  /**
   * 16 KiB: the chunks of the engine's stream that a paused exchange holds (the proxy pauses the
   * engine when a client falls behind, and what it had read stays queued until the client reads)
   * each keep the read buffer they were cut from. With the JVM's adaptive read sizes 1,000 clients
   * that stopped reading a stream of 200-byte events held 597 MiB of direct memory (454 MiB with 16
   * KB events), which with the image's 1.5 GiB heap is more than its 2 GiB container; with reads of
   * 16 KiB, 56 MiB (160 MiB), and 8 KiB 30 MiB (SlowClientsIT; benchmarks/README.md, "Stalled
   * clients"). It is also the socket's receive buffer (Vert.x sets both): the kernel doubles it, a
   * 32 KiB window toward an engine on the same network.
   */
  public static final ConfigKey<Long> UPSTREAM_RECEIVE_BUFFER =
      ConfigKey.of("PREFIXLOG_PROXY_UPSTREAM_RECEIVE_BUFFER", ConfigTypes.size(4L << 10, 16L << 20))
          .defaultValue(16L << 10)
          .doc(
              "the size of each read from an engine's connection, and its socket receive buffer:"
                  + " what a client that stops reading a stream makes the proxy hold is a few of"
                  + " these (~56 KiB per stalled client at 16 KiB, ~0.6 MiB with adaptive reads)");

  public static final ConfigKey<Duration> KEEPALIVE_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_KEEPALIVE_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(60))
          .doc("idle upstream connections are closed after this");

  /**
   * One event loop per core by default: with one loop, an exchange's event waits behind whatever
   * the loop is doing for another connection; with one per core, another loop takes it (at 10
   * clients on 2 cores, 2 loops took the added p50 from +0.43–0.61 ms to about +0.3 ms in
   * ProxyBenchmark).
   */
  public static final ConfigKey<Integer> EVENT_LOOPS =
      ConfigKey.of("PREFIXLOG_PROXY_EVENT_LOOPS", ConfigTypes.integer(1, 256))
          .defaultValue(Math.max(1, Math.min(256, Runtime.getRuntime().availableProcessors())))
          .documentedDefault("the number of cores")
          .doc(
              "event loops, each with its own listener instance on the one shared port"
                  + " (connections are handed out in turn) and its own upstream pool. With one"
                  + " loop, an exchange's event waits behind whatever the loop does for another"
                  + " connection; one per core lets another loop take it (ProxyBenchmark, 2 cores:"
                  + " 2 loops against 1 took the added p50 from ~+0.5 ms to ~+0.3 ms). A loop"
                  + " spends ~150 µs per 20 KB exchange");

  public static final ConfigKey<Integer> QUEUE_EVENTS =
      ConfigKey.of("PREFIXLOG_PROXY_QUEUE_EVENTS", ConfigTypes.integer(1, 10_000_000))
          .defaultValue(10_000)
          .doc("bound of the hand-off to the publisher, in events; full: counted drops");

  public static final ConfigKey<Long> QUEUE_BYTES =
      ConfigKey.of("PREFIXLOG_PROXY_QUEUE_BYTES", ConfigTypes.size(1 << 20, 64L << 30))
          .defaultValue(256L << 20)
          .doc("bound of the hand-off to the publisher, in bytes");

  /**
   * A third of the heap by default: with the publisher's queue (256 MiB) that leaves the image's
   * 1.5 GiB heap (2 GiB container) more than a third for the rest. Without a bound, 48 bodies of 4
   * MiB in flight against an engine that thought for 5 s took a bridge of 128 MiB down with an
   * OutOfMemoryError, and every exchange in flight and every event not yet published with it
   * (CaptureMemoryIT).
   */
  public static final ConfigKey<Long> CAPTURE_MEMORY =
      ConfigKey.of("PREFIXLOG_PROXY_CAPTURE_MEMORY", ConfigTypes.size(1 << 20, 64L << 30))
          .defaultValue(Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 3))
          .documentedDefault(
              "a third of the JVM's maximum heap (about 490 MiB in the image: a third of its 1.5 GiB heap less one survivor space)")
          .doc(
              "bound of the request bodies the exchanges in flight hold on the heap together (each"
                  + " from its first byte until its exchange ends); beyond it a body's capture is"
                  + " let go and its exchange counted dropped (capture_memory), while the exchange"
                  + " itself is proxied as always");

  /**
   * The publisher's wake-up interval under load. Each wake-up of the publisher (and, after it, of
   * the producer's sender and the broker) takes a core the event loops may need: waking once per 50
   * ms instead of once per 10 ms (with a 5 ms instead of 20 ms linger) cut the producer thread's
   * CPU per event by ~40 % and the produce requests 5-fold (ProxyBenchmark), at the price of events
   * reaching Kafka up to 50 ms later, which nothing waits for. Longer than a second only lets the
   * queue fill for nothing.
   *
   * <p>200 ms by default (benchmarks/README.md, "The capture side: the publisher's interval"): the
   * producer's network thread costs per produce request (woken for the new batch, at the end of the
   * linger, for the response), hardly per event, so 4 times fewer requests of 4 times more events
   * each take it from 92 to 31 µs per event against 50 ms (ProxyBenchmark, medians of 5 rounds) and
   * the publisher from 77 to 67 µs; events reach Kafka up to 205 ms after the exchange.
   */
  public static final ConfigKey<Duration> PUBLISH_INTERVAL =
      ConfigKey.of(
              "PREFIXLOG_PROXY_PUBLISH_INTERVAL",
              ConfigTypes.duration(
                  Duration.ZERO, Duration.ofSeconds(1), "from 0 (publish at every event) to 1s"))
          .defaultValue(Duration.ofMillis(200))
          .doc(
              "under load the publisher wakes this often to encode and send what queued meanwhile"
                  + " (0: at every event); events reach Kafka up to this (+ 5 ms linger) later");

  /**
   * The warm-up's maximum. 2 s by default: ProxyBenchmark --cold-start, a 20 s maximum against 2 s
   * on JDK 17 in the same rounds: C2 does not go quiet within 20 s, the listener opens ~18 s later,
   * and the first minute's added p99 is no better (+43 against +27 ms, -0.7 against +0.1 ms). Worth
   * raising where the JIT does go quiet (C1 only: 5-7 s).
   */
  public static final ConfigKey<Duration> WARMUP =
      ConfigKey.of(
              "PREFIXLOG_PROXY_WARMUP",
              ConfigTypes.duration(Duration.ZERO, Duration.ofSeconds(60), "from 0 (none) to 60s"))
          .defaultValue(Duration.ofSeconds(2))
          .doc(
              "before the listener opens, synthetic exchanges run through the proxy's own handler"
                  + " against a loopback upstream until the JIT is quiet"
                  + " (`PREFIXLOG_PROXY_WARMUP_QUIET`), for at most this long, so that the first"
                  + " clients after a start meet compiled code; they are captured and discarded"
                  + " (never published, never counted in the metrics); /health answers 503"
                  + " `warming_up` meanwhile; 0: none");

  public static final ConfigKey<Duration> WARMUP_QUIET =
      ConfigKey.of(
              "PREFIXLOG_PROXY_WARMUP_QUIET",
              ConfigTypes.duration(
                  Duration.ZERO, Duration.ofSeconds(10), "from 0 (the whole maximum) to 10s"))
          .defaultValue(Duration.ofSeconds(2))
          .doc(
              "the warm-up ends early once the JIT compiled for at most 5 % of this long (after at"
                  + " least 1,000 exchanges), never before this long; 0: it runs for the whole"
                  + " `PREFIXLOG_PROXY_WARMUP`");

  /**
   * The capture threads' Java priority. On Linux a Java priority reaches the OS only with {@code
   * -XX:ThreadPriorityPolicy=1} (then 1 is nice 4, 5 is nice 0); without it, or elsewhere, this
   * setting changes nothing. A lower priority lets an event loop that wakes up take a core from the
   * publisher or the producer's sender rather than wait for it: the capture work can wait (the
   * queue holds it), a client cannot. See benchmarks/README.md, "Thread priorities and collectors".
   */
  public static final ConfigKey<Integer> CAPTURE_PRIORITY =
      ConfigKey.of("PREFIXLOG_PROXY_CAPTURE_PRIORITY", ConfigTypes.integer(1, 10))
          .defaultValue(Thread.MIN_PRIORITY)
          .doc(
              "Java priority (1-10; 5: the event loops') of the capture threads: the publisher,"
                  + " the Kafka producer's network thread and the producer metrics' thread. Reaches"
                  + " the OS on Linux only with `-XX:ThreadPriorityPolicy=1` in `JAVA_OPTS`"
                  + " (priority 1 is nice 4; a non-root user may lower a priority, never raise it),"
                  + " so that an event loop that wakes up takes a core before them; without that"
                  + " flag it has no effect");

  public static final ConfigKey<Path> SPILL_DIR =
      ConfigKey.of("PREFIXLOG_SPILL_DIR", ConfigTypes.path())
          .documentedDefault("none (drop)")
          .doc("spill events Kafka refuses here and resend them, in order");

  public static final ConfigKey<Long> SPILL_MAX_BYTES =
      ConfigKey.of("PREFIXLOG_SPILL_MAX_BYTES", ConfigTypes.size(1 << 20, 1L << 50))
          .defaultValue(1L << 30)
          .doc("spill bound; beyond it events are dropped (`reason=\"spill_full\"`)");

  public static final ConfigKey<Long> SPILL_SEGMENT_BYTES =
      ConfigKey.of("PREFIXLOG_SPILL_SEGMENT_BYTES", ConfigTypes.size(64 << 10, 1L << 31))
          .defaultValue(64L << 20)
          .doc("spill segment size, at most `PREFIXLOG_SPILL_MAX_BYTES`");

  public static final ConfigKey<Duration> SPILL_RETRY_INTERVAL =
      ConfigKey.of("PREFIXLOG_SPILL_RETRY_INTERVAL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(1))
          .doc("how often a resend is tried while spilling");

  public static final ConfigKey<Duration> SPILL_FSYNC_INTERVAL =
      ConfigKey.of(
              "PREFIXLOG_SPILL_FSYNC_INTERVAL",
              ConfigTypes.duration("force every batch of appends"))
          .defaultValue(Duration.ZERO)
          .documentedDefault("`0` (every batch)")
          .doc(
              "how often spilled events are forced to disk: a power loss can lose the appends of"
                  + " one interval (a process crash loses none); corrupt spill records are"
                  + " quarantined and counted (`prefixlog_proxy_spill_quarantined`)");

  public static final ConfigKey<Integer> SPILL_FORMAT =
      ConfigKey.of("PREFIXLOG_SPILL_FORMAT", ConfigTypes.integer(1, 2))
          .defaultValue(1)
          .doc(
              "the version of the spill records this bridge writes (it reads both): `1` (magic"
                  + " PLS1) is read by every bridge build, so a bridge rolled back onto a spill"
                  + " that is not empty still resends it, but a resent record's timestamp is the"
                  + " bridge's clock at the resend (its `ts` kept); `2` (PLS2) keeps the capture"
                  + " time as the resent record's timestamp, and only this build and later read"
                  + " it (an earlier one quarantines it: its events never reach Kafka). Set `2`"
                  + " once no earlier build will be started on this spill directory (the README's"
                  + " \"Upgrades and rollbacks\")");

  public static final ConfigKey<Duration> MAX_CLOCK_SKEW =
      ConfigKey.of("PREFIXLOG_MAX_CLOCK_SKEW", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(5))
          .doc(
              "a raw event's record timestamp is its capture time (`ts`); an event captured"
                  + " further ahead of this bridge's clock than this (a middleware whose clock is"
                  + " wrong) gets the bridge's clock at the send instead, counted"
                  + " (`prefixlog_proxy_record_time_adjusted_total{reason=\"ahead\"}`), its `ts`"
                  + " kept. Keep it below the broker's `message.timestamp.after.max.ms` (1 h in"
                  + " Kafka 4), which refuses a record further ahead");

  public static final ConfigKey<Duration> MAX_CAPTURE_AGE =
      ConfigKey.of("PREFIXLOG_MAX_CAPTURE_AGE", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofHours(12))
          .doc(
              "an event older than this when it is sent (a long spill, a middleware's backlog)"
                  + " gets the bridge's clock as its record timestamp instead of its capture time,"
                  + " counted (`…{reason=\"old\"}`), its `ts` kept: the broker deletes records by"
                  + " their timestamps, and a capture older than the raw topic's retention (24 h)"
                  + " could go before the stream app reads it. Keep it well below that retention"
                  + " and the stream app's `PREFIXLOG_DEDUP_WINDOW`");

  public static final ConfigKey<String> INGEST_TOKEN =
      ConfigKey.of("PREFIXLOG_INGEST_TOKEN", ConfigTypes.text())
          .documentedDefault("none (endpoint off)")
          .secret()
          .doc(
              "bearer token of the ingest endpoint `POST /prefixlog/v1/events`, ≥ 16 characters;"
                  + " a placeholder is refused beyond loopback");

  public static final ConfigKey<Long> INGEST_MAX_BYTES =
      ConfigKey.of("PREFIXLOG_INGEST_MAX_BYTES", ConfigTypes.size(1024, 1L << 31))
          .defaultValue(64L << 20)
          .doc("largest ingest request");

  // Four bodies of up to 64 MiB being read and validated at once: 256 MiB at the most, whatever
  // the number of ingest clients.
  public static final ConfigKey<Integer> INGEST_MAX_CONCURRENT =
      ConfigKey.of("PREFIXLOG_INGEST_MAX_CONCURRENT", ConfigTypes.integer(1, 1024))
          .defaultValue(4)
          .doc(
              "ingest requests read at once (each buffered up to `PREFIXLOG_INGEST_MAX_BYTES`);"
                  + " one more gets 503 with `Retry-After: 1`");

  // Far above what one proxy in front of an engine serves (the engine batches a few hundred
  // requests), far below a default file descriptor limit; an idle connection costs a few KiB.
  public static final ConfigKey<Integer> MAX_CLIENT_CONNECTIONS =
      ConfigKey.of("PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS", ConfigTypes.integer(1, 1_000_000))
          .defaultValue(4096)
          .doc(
              "client connections open at once, all event loops together; one more is closed as"
                  + " it is accepted, counted");

  // A client on any real network sends its head in well under a second.
  public static final ConfigKey<Duration> HEADER_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_HEADER_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(10))
          .doc("a new connection that has not sent a complete request head by then is closed");

  public static final ConfigKey<Duration> CLIENT_IDLE_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(60))
          .doc(
              "the longest a client may stay silent while the proxy waits for it: between"
                  + " keep-alive requests, mid-body, or taking none of a response it has stopped"
                  + " reading (the engine's stream paused for it); waiting for the engine is"
                  + " `PREFIXLOG_PROXY_UPSTREAM_TIMEOUT`'s business, so a slow engine never trips"
                  + " it");

  public static final ConfigKey<Duration> DRAIN_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_DRAIN_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(10))
          .doc("how long shutdown waits for exchanges in flight");

  public static final ConfigKey<String> METRICS_HOST = CommonKeys.METRICS_HOST;

  public static final ConfigKey<Integer> METRICS_PORT =
      CommonKeys.metricsPort(DEFAULT_METRICS_PORT);

  public static final ConfigKey<Boolean> METRICS_HISTOGRAMS =
      ConfigKey.of("PREFIXLOG_METRICS_HISTOGRAMS", ConfigTypes.bool())
          .defaultValue(true)
          .doc(
              "`false`: the proxy's latency histograms record nothing (counters, gauges and the"
                  + " Kafka meters stay); what they cost is in the proxy benchmark");

  public static final ConfigKey<Boolean> ALLOW_WEAKER_DELIVERY = CommonKeys.ALLOW_WEAKER_DELIVERY;

  /** Every setting of the capture proxy, in the README's order. */
  public static final ConfigDef DEFINITION =
      CommonKeys.withKafka(
          "capture proxy",
          List.of(
              UPSTREAM,
              HOST,
              PORT,
              BOOTSTRAP_SERVERS,
              TOPIC_PREFIX,
              MAX_BODY_BYTES,
              SESSION_SECRET,
              SESSION_HEADERS,
              CAPTURE_HEADERS,
              CLIENT_ADDR,
              RAW_EVENT_FORMAT,
              SAMPLE_SESSIONS,
              SAMPLE_SEED,
              SAMPLE_KEEP_ERRORS,
              SAMPLE_KEEP_MODELS,
              SAMPLE_KEEP_PATHS,
              SAMPLE_HASH_CHUNKS,
              CHUNK_SIZE_BYTES,
              SET_SESSION_HEADER,
              FORWARDED_HEADERS,
              CONNECT_TIMEOUT,
              UPSTREAM_TIMEOUT,
              MAX_CONNECTIONS,
              UPSTREAM_RECEIVE_BUFFER,
              KEEPALIVE_TIMEOUT,
              EVENT_LOOPS,
              QUEUE_EVENTS,
              QUEUE_BYTES,
              CAPTURE_MEMORY,
              PUBLISH_INTERVAL,
              WARMUP,
              WARMUP_QUIET,
              CAPTURE_PRIORITY,
              SPILL_DIR,
              SPILL_MAX_BYTES,
              SPILL_SEGMENT_BYTES,
              SPILL_RETRY_INTERVAL,
              SPILL_FSYNC_INTERVAL,
              SPILL_FORMAT,
              MAX_CLOCK_SKEW,
              MAX_CAPTURE_AGE,
              INGEST_TOKEN,
              INGEST_MAX_BYTES,
              INGEST_MAX_CONCURRENT,
              MAX_CLIENT_CONNECTIONS,
              HEADER_TIMEOUT,
              CLIENT_IDLE_TIMEOUT,
              DRAIN_TIMEOUT,
              METRICS_HOST,
              METRICS_PORT,
              METRICS_HISTOGRAMS,
              ALLOW_WEAKER_DELIVERY));

  private final ConfigValues values;
  private final Map<String, String> kafka;

  private ProxyConfig(ConfigValues values, Map<String, String> kafka) {
    this.values = values;
    this.kafka = Map.copyOf(new TreeMap<>(kafka));
    checkTogether();
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
                UPSTREAM.name(), upstream.toString(), BOOTSTRAP_SERVERS.name(), bootstrapServers)));
  }

  /** A copy with {@code key} set to {@code value}, checked as if it had been read. */
  public <T> ProxyConfig with(ConfigKey<T> key, T value) {
    return new ProxyConfig(values.with(key, value), kafka);
  }

  public ProxyConfig withListen(String host, int port) {
    return new ProxyConfig(values.with(HOST, host).with(PORT, port), kafka);
  }

  public ProxyConfig withTimeouts(Duration connect, Duration upstreamIdle) {
    return new ProxyConfig(
        values.with(CONNECT_TIMEOUT, connect).with(UPSTREAM_TIMEOUT, upstreamIdle), kafka);
  }

  /**
   * Spill to {@code dir} (null: drop what cannot be published), at most {@code maxBytes}. The three
   * are checked together once all are set (a segment may not exceed the bound).
   */
  public ProxyConfig withSpill(Path dir, long maxBytes, long segmentBytes) {
    return new ProxyConfig(
        values
            .with(SPILL_DIR, dir)
            .with(SPILL_MAX_BYTES, maxBytes)
            .with(SPILL_SEGMENT_BYTES, segmentBytes),
        kafka);
  }

  /** Client connection cap, head timeout and idle timeout (see their getters). */
  public ProxyConfig withClientLimits(int maxConnections, Duration header, Duration idle) {
    return new ProxyConfig(
        values
            .with(MAX_CLIENT_CONNECTIONS, maxConnections)
            .with(HEADER_TIMEOUT, header)
            .with(CLIENT_IDLE_TIMEOUT, idle),
        kafka);
  }

  /** Replaces the pass-through Kafka producer settings ({@code linger.ms}, …). */
  public ProxyConfig withKafka(Map<String, String> kafka) {
    return new ProxyConfig(values, kafka);
  }

  /** The value of any setting of {@link #DEFINITION}. */
  public <T> T get(ConfigKey<T> key) {
    return values.get(key);
  }

  public URI upstream() {
    return values.get(UPSTREAM);
  }

  public String listenHost() {
    return values.get(HOST);
  }

  public int listenPort() {
    return values.get(PORT);
  }

  public String bootstrapServers() {
    return values.get(BOOTSTRAP_SERVERS);
  }

  public String topicPrefix() {
    return values.get(TOPIC_PREFIX);
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix());
  }

  public String sessionSecret() {
    return values.get(SESSION_SECRET);
  }

  /** True when no secret was configured and the development default is in use. */
  public boolean usesDevSecret() {
    return sessionSecret().equals(SessionKeyDeriver.DEV_SECRET);
  }

  public List<String> sessionHeaders() {
    return values.get(SESSION_HEADERS);
  }

  public Set<String> captureHeaders() {
    return Set.copyOf(new LinkedHashSet<>(values.get(CAPTURE_HEADERS)));
  }

  public ClientAddrMode clientAddrMode() {
    return values.get(CLIENT_ADDR);
  }

  public RawEventFormat rawEventFormat() {
    return values.get(RAW_EVENT_FORMAT);
  }

  public long maxBodyBytes() {
    return values.get(MAX_BODY_BYTES);
  }

  public Duration connectTimeout() {
    return values.get(CONNECT_TIMEOUT);
  }

  public Duration upstreamIdleTimeout() {
    return values.get(UPSTREAM_TIMEOUT);
  }

  /** Connections to the engine, all event loops together. */
  public int maxUpstreamConnections() {
    return values.get(MAX_CONNECTIONS);
  }

  /** Each event loop's pool: its share of {@link #maxUpstreamConnections()}, at least one. */
  public int upstreamConnectionsPerLoop() {
    return Math.max(1, (maxUpstreamConnections() + eventLoops() - 1) / eventLoops());
  }

  public Duration upstreamKeepAlive() {
    return values.get(KEEPALIVE_TIMEOUT);
  }

  public int eventLoops() {
    return values.get(EVENT_LOOPS);
  }

  public double sampleSessions() {
    return values.get(SAMPLE_SESSIONS);
  }

  public String sampleSeed() {
    return values.get(SAMPLE_SEED);
  }

  public boolean sampleKeepErrors() {
    return values.get(SAMPLE_KEEP_ERRORS);
  }

  public List<String> sampleKeepModels() {
    return values.get(SAMPLE_KEEP_MODELS);
  }

  public List<String> sampleKeepPaths() {
    return values.get(SAMPLE_KEEP_PATHS);
  }

  public boolean sampleHashChunks() {
    return values.get(SAMPLE_HASH_CHUNKS);
  }

  public int chunkSizeBytes() {
    return values.get(CHUNK_SIZE_BYTES).intValue();
  }

  public boolean setSessionHeader() {
    return values.get(SET_SESSION_HEADER);
  }

  public boolean forwardedHeaders() {
    return values.get(FORWARDED_HEADERS);
  }

  public int queueEvents() {
    return values.get(QUEUE_EVENTS);
  }

  public long queueBytes() {
    return values.get(QUEUE_BYTES);
  }

  public int upstreamReceiveBuffer() {
    return Math.toIntExact(values.get(UPSTREAM_RECEIVE_BUFFER));
  }

  public long captureMemory() {
    return values.get(CAPTURE_MEMORY);
  }

  /** See {@link #WARMUP}; zero: none. */
  public Duration warmup() {
    return values.get(WARMUP);
  }

  /** See {@link #WARMUP_QUIET}; zero: the warm-up runs for its whole maximum. */
  public Duration warmupQuiet() {
    return values.get(WARMUP_QUIET);
  }

  /** See {@link #PUBLISH_INTERVAL}; zero: at every event. */
  public Duration publishInterval() {
    return values.get(PUBLISH_INTERVAL);
  }

  /** See {@link #CAPTURE_PRIORITY}: the capture threads' Java priority. */
  public int capturePriority() {
    return values.get(CAPTURE_PRIORITY);
  }

  /** The spill directory, or null when events that cannot be published are dropped. */
  public Path spillDir() {
    return values.get(SPILL_DIR);
  }

  public long spillMaxBytes() {
    return values.get(SPILL_MAX_BYTES);
  }

  public long spillSegmentBytes() {
    return values.get(SPILL_SEGMENT_BYTES);
  }

  public Duration retryInterval() {
    return values.get(SPILL_RETRY_INTERVAL);
  }

  /** See {@link #SPILL_FSYNC_INTERVAL}; zero forces every batch of appends. */
  public Duration spillFsyncInterval() {
    return values.get(SPILL_FSYNC_INTERVAL);
  }

  /** See {@link #SPILL_FORMAT}: the spill record version written, 1 or 2. */
  public int spillFormat() {
    return values.get(SPILL_FORMAT);
  }

  /** See {@link #MAX_CLOCK_SKEW}. */
  public Duration maxClockSkew() {
    return values.get(MAX_CLOCK_SKEW);
  }

  /** See {@link #MAX_CAPTURE_AGE}. */
  public Duration maxCaptureAge() {
    return values.get(MAX_CAPTURE_AGE);
  }

  /** The ingest endpoint's bearer token, or null when the endpoint is disabled. */
  public String ingestToken() {
    return values.get(INGEST_TOKEN);
  }

  public long ingestMaxBytes() {
    return values.get(INGEST_MAX_BYTES);
  }

  public int ingestMaxConcurrent() {
    return values.get(INGEST_MAX_CONCURRENT);
  }

  public int maxClientConnections() {
    return values.get(MAX_CLIENT_CONNECTIONS);
  }

  public Duration headerTimeout() {
    return values.get(HEADER_TIMEOUT);
  }

  public Duration clientIdleTimeout() {
    return values.get(CLIENT_IDLE_TIMEOUT);
  }

  public Duration drainTimeout() {
    return values.get(DRAIN_TIMEOUT);
  }

  public String metricsHost() {
    return values.get(METRICS_HOST);
  }

  public int metricsPort() {
    return values.get(METRICS_PORT);
  }

  /** False: the latency histograms record nothing (counters and gauges stay). */
  public boolean metricsHistograms() {
    return values.get(METRICS_HISTOGRAMS);
  }

  public Map<String, String> kafka() {
    return kafka;
  }

  /** Every setting; the secret and the token hidden. */
  @Override
  public String toString() {
    return values.toString();
  }

  /** The upstream port, the scheme's default when the URL gives none. */
  int upstreamPort() {
    URI upstream = upstream();
    if (upstream.getPort() > 0) {
      return upstream.getPort();
    }
    return upstream.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  boolean upstreamTls() {
    return upstream().getScheme().equalsIgnoreCase("https");
  }

  /** The rules that tie settings together, and the credentials' strength. */
  private void checkTogether() {
    String host = listenHost();
    if (host.isBlank()) {
      throw new ConfigException(HOST.name() + " must not be empty");
    }
    if (bootstrapServers().isBlank()) {
      throw new ConfigException(BOOTSTRAP_SERVERS.name() + " must not be empty");
    }
    int secretBytes = sessionSecret().getBytes(StandardCharsets.UTF_8).length;
    if (secretBytes < 16) {
      throw new ConfigException(
          SESSION_SECRET.name() + ": expected at least 16 bytes, got " + secretBytes);
    }
    UnsafeDefaults.refuseBeyondLoopback(
        SESSION_SECRET.name(),
        sessionSecret(),
        host,
        HOST.name() + "=" + host,
        "Set it to a random value of at least 16 bytes (openssl rand -hex 32;"
            + " bin/prefixlog-compose-env writes one for docker-compose), or listen on 127.0.0.1.");
    if (spillSegmentBytes() > spillMaxBytes()) {
      throw new ConfigException(
          SPILL_SEGMENT_BYTES.name()
              + " ("
              + spillSegmentBytes()
              + ") must not exceed "
              + SPILL_MAX_BYTES.name()
              + " ("
              + spillMaxBytes()
              + ")");
    }
    String token = ingestToken();
    if (token != null) {
      if (token.length() < 16) {
        throw new ConfigException(
            INGEST_TOKEN.name() + ": expected at least 16 characters, got " + token.length());
      }
      UnsafeDefaults.refuseBeyondLoopback(
          INGEST_TOKEN.name(),
          token,
          host,
          HOST.name() + "=" + host,
          "Set it to a random value (openssl rand -hex 32), leave it unset to turn the ingest"
              + " endpoint off, or listen on 127.0.0.1.");
    }
    if (sampleSeed().isEmpty()) {
      throw new ConfigException(SAMPLE_SEED.name() + " must not be empty");
    }
    if (metricsHost().isBlank()) {
      throw new ConfigException(METRICS_HOST.name() + " must not be empty");
    }
  }

  /** An engine's origin: http(s), a host, no path, query or fragment. */
  private static final class UpstreamType implements ConfigType<URI> {
    @Override
    public URI parse(String key, String raw) {
      try {
        return check(key, new URI(raw.trim()));
      } catch (URISyntaxException e) {
        throw new ConfigException(key + "=" + raw + ": not a URL (" + e.getReason() + ")");
      }
    }

    @Override
    public URI check(String key, URI uri) {
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new ConfigException(key + "=" + uri + ": expected an http:// or https:// URL");
      }
      if (uri.getHost() == null) {
        throw new ConfigException(key + "=" + uri + ": the URL names no host");
      }
      String path = uri.getRawPath();
      if ((path != null && !path.isEmpty() && !path.equals("/"))
          || uri.getRawQuery() != null
          || uri.getRawFragment() != null) {
        throw new ConfigException(
            key
                + "="
                + uri
                + ": give the engine's origin only (scheme, host, port); request paths are"
                + " forwarded unchanged");
      }
      return uri;
    }

    @Override
    public String format(URI value) {
      return value.toString();
    }

    @Override
    public String describe() {
      return "http(s) URL";
    }
  }

  /** Plain comma-separated items (model names, path prefixes), trimmed, empty ones dropped. */
  private static final class Items implements ConfigType<List<String>> {
    @Override
    public List<String> parse(String key, String raw) {
      return check(key, ConfigTypes.items(raw));
    }

    @Override
    public List<String> check(String key, List<String> items) {
      return items.stream().map(String::trim).filter(item -> !item.isEmpty()).toList();
    }

    @Override
    public String format(List<String> value) {
      return String.join(",", value);
    }

    @Override
    public String describe() {
      return "items, comma separated";
    }
  }

  /**
   * HTTP header names, lower-cased and deduplicated; a credential header (Authorization, API key,
   * token, secret, cookie) is refused, so it can never be captured or become a session key.
   */
  private static final class HeaderNames implements ConfigType<List<String>> {
    @Override
    public List<String> parse(String key, String raw) {
      return check(key, ConfigTypes.items(raw));
    }

    @Override
    public List<String> check(String key, List<String> names) {
      List<String> result = new ArrayList<>();
      for (String name : names) {
        String lower = name.trim().toLowerCase(Locale.ROOT);
        if (lower.isEmpty()) {
          continue;
        }
        if (!lower.matches("[0-9a-z!#$%&'*+.^_`|~-]+")) {
          throw new ConfigException(key + ": '" + name + "' is not an HTTP header name");
        }
        if (HeaderPolicy.isSecret(lower)) {
          throw new ConfigException(
              key
                  + " names '"
                  + lower
                  + "', a credential header: Authorization, API-key, token, secret and cookie"
                  + " headers are never captured");
        }
        if (!result.contains(lower)) {
          result.add(lower);
        }
      }
      return List.copyOf(result);
    }

    @Override
    public String format(List<String> value) {
      return String.join(",", value);
    }

    @Override
    public String describe() {
      return "header names, comma separated";
    }
  }
}
