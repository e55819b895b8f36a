package io.prefixlog.streams;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.config.UnsafeDefaults;
import io.prefixlog.core.delta.DeltaEncoder;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.request.QueryCredentials;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.upgrade.FormatGeneration;
import io.prefixlog.streams.upgrade.FormatGenerations;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Every setting of the stream app, validated on construction. Each is declared once below as a
 * {@link ConfigKey}; {@link #DEFINITION} lists them for parsing, the README's table and {@code
 * --help}. {@link #fromSettings} reads them from environment variables or a properties file named
 * by {@code PREFIXLOG_CONFIG_FILE}; {@code PREFIXLOG_KAFKA_*} settings pass through to the Kafka
 * clients ({@code PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes {@code security.protocol}).
 */
public final class StreamAppConfig {
  public static final String DEFAULT_BOOTSTRAP = CommonKeys.DEFAULT_BOOTSTRAP;

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = CommonKeys.BOOTSTRAP_SERVERS;

  public static final ConfigKey<String> TOPIC_PREFIX = CommonKeys.TOPIC_PREFIX;

  public static final ConfigKey<String> APPLICATION_ID =
      ConfigKey.of("PREFIXLOG_APPLICATION_ID", ConfigTypes.text())
          .defaultValue("prefixlog-stream-app")
          .doc(
              "Kafka Streams application id: the consumer group and the prefix of the changelog"
                  + " topics, shared by every instance");

  public static final ConfigKey<Integer> UPGRADE_FROM =
      ConfigKey.of("PREFIXLOG_UPGRADE_FROM", FormatGenerations.KNOWN.settingType())
          .documentedDefault("none (write the newest formats)")
          .doc(
              "the format generation of the build a rolling upgrade replaces: this build then"
                  + " keeps writing that generation's state and record formats, which every member"
                  + " of the mixed group reads. Roll once with it, then once without it (the"
                  + " README's \"Upgrades and rollbacks\"). The app logs the generation it writes"
                  + " at start");

  public static final ConfigKey<Path> STATE_DIR =
      ConfigKey.of("PREFIXLOG_STATE_DIR", ConfigTypes.path())
          .defaultValue(Path.of("var/streams"))
          .doc("RocksDB state directory");

  public static final ConfigKey<Integer> STREAM_THREADS =
      ConfigKey.of("PREFIXLOG_STREAM_THREADS", ConfigTypes.integer(1, 64))
          .defaultValue(1)
          .doc("stream threads per instance");

  public static final ConfigKey<Integer> STANDBY_REPLICAS =
      ConfigKey.of("PREFIXLOG_STANDBY_REPLICAS", ConfigTypes.integer(0, 8))
          .defaultValue(0)
          .doc(
              "standby replicas of the state (Kafka Streams `num.standby.replicas`): warm copies"
                  + " on other instances, for a fast failover when the app runs as several"
                  + " instances");

  public static final ConfigKey<Integer> PARTITIONS =
      ConfigKey.of("PREFIXLOG_PARTITIONS", ConfigTypes.integer(1, 10_000))
          .defaultValue(6)
          .doc("partitions of the topics the app creates");

  public static final ConfigKey<Integer> STATE_PARTITIONS =
      ConfigKey.of("PREFIXLOG_STATE_PARTITIONS", ConfigTypes.integer(1, 10_000))
          .documentedDefault("`PREFIXLOG_PARTITIONS`")
          .doc(
              "partitions of the internal topic that routes raw events to the session state, and"
                  + " so of the state: the most instances × threads that share the session work."
                  + " Fixed at the first start; the raw topic can then gain partitions without"
                  + " moving any session's state");

  public static final ConfigKey<Integer> REPLICATION_FACTOR =
      ConfigKey.of("PREFIXLOG_REPLICATION_FACTOR", ConfigTypes.integer(1, 16))
          .defaultValue(1)
          .doc("replication factor of the topics the app creates and of the changelogs");

  public static final ConfigKey<Duration> COMMIT_INTERVAL =
      ConfigKey.of("PREFIXLOG_COMMIT_INTERVAL", ConfigTypes.duration("Kafka Streams' minimum"))
          .defaultValue(Duration.ofMillis(100))
          .doc("exactly-once commit interval (exactly-once's default)");

  public static final ConfigKey<Long> MAX_BODY_BYTES =
      ConfigKey.of("PREFIXLOG_MAX_BODY_BYTES", ConfigTypes.size(1024, 256L << 20))
          .defaultValue(RecordLimits.DEFAULT_MAX_BODY_BYTES)
          .doc("capture limit; larger bodies are dead-lettered");

  public static final ConfigKey<QueryCredentials> QUERY_CREDENTIALS = QueryCredentials.SETTING;

  public static final ConfigKey<Integer> SESSION_MAX_BASES =
      ConfigKey.of("PREFIXLOG_SESSION_MAX_BASES", ConfigTypes.integer(1, 64))
          .defaultValue(EncoderSettings.DEFAULTS.maxBases())
          .doc("bases kept per session");

  public static final ConfigKey<Long> SESSION_MAX_BASE_BYTES =
      ConfigKey.of("PREFIXLOG_SESSION_MAX_BASE_BYTES", ConfigTypes.size(1, 1L << 31))
          .defaultValue(EncoderSettings.DEFAULTS.maxBaseBytes())
          .doc("bytes of bases kept per session");

  public static final ConfigKey<Integer> KEYFRAME_INTERVAL =
      ConfigKey.of("PREFIXLOG_KEYFRAME_INTERVAL", ConfigTypes.integer(1, 10_000))
          .defaultValue(EncoderSettings.DEFAULTS.keyframeInterval())
          .doc(
              "at most this many records per rebuild chain of `session.deltas`: a reader applies"
                  + " up to this many deltas to rebuild one turn, and each keyframe stores a whole"
                  + " body again");

  public static final ConfigKey<Integer> BASE_REBUILD_RECORDS =
      ConfigKey.of("PREFIXLOG_BASE_REBUILD_RECORDS", ConfigTypes.integer(1, 10_000))
          .defaultValue(32)
          .doc(
              "at most this many records of the bases store are read and applied to rebuild a"
                  + " base that is not in the base cache (after a restore, or for a session the"
                  + " cache let go): the store writes a base whole when its log reaches this"
                  + " length. Lower: cheaper misses, more whole bodies in the bases changelog");

  public static final ConfigKey<Double> MAX_INSERTED_FRACTION =
      ConfigKey.of("PREFIXLOG_MAX_INSERTED_FRACTION", ConfigTypes.decimal(0, 1))
          .defaultValue(EncoderSettings.DEFAULTS.maxInsertedFraction())
          .doc("above this share of literal bytes, a keyframe is written");

  public static final ConfigKey<Integer> MIN_MATCH_BYTES =
      ConfigKey.of(
              "PREFIXLOG_MIN_MATCH_BYTES",
              ConfigTypes.integer(DeltaEncoder.MIN_MATCH_FLOOR, 1 << 20))
          .defaultValue(EncoderSettings.DEFAULTS.minMatchBytes())
          .doc("shortest match worth a copy op");

  public static final ConfigKey<Duration> SESSION_TTL =
      ConfigKey.of("PREFIXLOG_SESSION_TTL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(30))
          .doc(
              "idle sessions lose their bases (stream time); must be below"
                  + " `PREFIXLOG_OUTPUT_RETENTION` and at least `PREFIXLOG_EVICTION_INTERVAL`");

  public static final ConfigKey<Duration> SESSION_SEQ_RETENTION =
      ConfigKey.of("PREFIXLOG_SESSION_SEQ_RETENTION", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofDays(7))
          .doc(
              "idle sessions lose their chain (stream time); their next turn starts a new chain."
                  + " At least `PREFIXLOG_OUTPUT_RETENTION`: a new chain then starts only once the"
                  + " records of the session's previous chain are past the outputs' retention, so"
                  + " no key (`session_key/chain/seq`, with an 8-digit chain id) repeats while"
                  + " older records are kept");

  public static final ConfigKey<Duration> DEDUP_WINDOW =
      ConfigKey.of("PREFIXLOG_DEDUP_WINDOW", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofHours(24))
          .doc(
              "an exact resend of a capture (its `capture_id`, or without one its `request_id`"
                  + " and `ts`, with the same body) that its session stored within this stream"
                  + " time gives no second turn (dropped, counted); every other event is a turn,"
                  + " retries and reused client ids included");

  public static final ConfigKey<Duration> EVICTION_INTERVAL =
      ConfigKey.of("PREFIXLOG_EVICTION_INTERVAL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(1))
          .doc("how often idle sessions are looked for, in stream time");

  public static final ConfigKey<Duration> MAX_CLOCK_SKEW =
      ConfigKey.of("PREFIXLOG_MAX_CLOCK_SKEW", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(5))
          .doc(
              "an input record (`requests.raw`, `kv.events`) whose timestamp is further ahead of"
                  + " this instance's clock than this (a producer whose clock runs ahead) is"
                  + " processed as if it were this far ahead: stream time, which times the idle"
                  + " sessions and the dedup window, moves no further, and the records written"
                  + " take that time; the event's `ts` is kept. Counted"
                  + " (`prefixlog_record_time_clamped_total{topic}`), logged once a minute. Keep"
                  + " it well below `PREFIXLOG_SESSION_TTL`: a record at the bound can still take"
                  + " the bases of the sessions of its partition idle longer than the TTL less"
                  + " this. The instance's own clock must be right (NTP): one behind by more than"
                  + " this holds every record to it");
  public static final ConfigKey<Integer> BULK_BATCH =
      ConfigKey.of("PREFIXLOG_BULK_BATCH", ConfigTypes.integer(1, 1_000_000))
          .defaultValue(2000)
          .doc(
              "work too large for one transaction is done in steps of at most this many keys per"
                  + " task, one step every `PREFIXLOG_BULK_INTERVAL`, each committed on its own:"
                  + " an erasure's tombstones and dedup entries (a chain of any length), the"
                  + " blocks of a cleared or expired KV source, the session states a starting task indexes"
                  + " for idle eviction. An erasure of up to this many turns, a clear of up to this"
                  + " many blocks, is done at once. Progress: `prefixlog_bulk_keys_total` and"
                  + " `prefixlog_bulk_pending`, and a log line when each job starts and ends");

  public static final ConfigKey<Duration> BULK_INTERVAL =
      ConfigKey.of("PREFIXLOG_BULK_INTERVAL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMillis(100))
          .doc(
              "how often a task takes a step of that work, wall clock; at the commit interval"
                  + " (exactly-once's 100 ms) a transaction holds about one step");

  public static final ConfigKey<Duration> RAW_RETENTION =
      ConfigKey.of("PREFIXLOG_RAW_RETENTION", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofHours(24))
          .doc("retention of the input topics the app creates");

  public static final ConfigKey<Duration> OUTPUT_RETENTION =
      ConfigKey.of("PREFIXLOG_OUTPUT_RETENTION", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofDays(7))
          .doc(
              "retention of the compact,delete outputs (deltas, lookups), the dead letters and"
                  + " the erasure acknowledgements. The broker counts it from each record's"
                  + " timestamp, which is the request's capture time, not from when the record was"
                  + " written: the archive must read an output before its capture is this old, and"
                  + " the output of a capture older than this (a long spill, a backlog) is deleted"
                  + " as it arrives");

  public static final ConfigKey<Duration> MAX_COMPACTION_LAG =
      ConfigKey.of("PREFIXLOG_MAX_COMPACTION_LAG", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofDays(1))
          .doc(
              "`max.compaction.lag.ms` of the compacted topics the app creates and of its stores'"
                  + " changelogs: a replaced or erased value leaves the broker's disk within about"
                  + " this long (the broker rolls and cleans the segment whatever its dirty ratio)");

  public static final ConfigKey<String> METRICS_HOST = CommonKeys.METRICS_HOST;

  public static final ConfigKey<Integer> METRICS_PORT = CommonKeys.metricsPort(9464);

  public static final ConfigKey<HostCheck> ALLOWED_HOSTS = HostCheck.SETTING;

  public static final ConfigKey<Boolean> CHUNK_LOOKUPS_ENABLED =
      ConfigKey.of("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", ConfigTypes.bool())
          .defaultValue(true)
          .doc("emit one chunk-hash lookup record per request to `chunk.lookups`");

  public static final ConfigKey<Long> CHUNK_SIZE_BYTES = CommonKeys.CHUNK_SIZE_BYTES;

  public static final ConfigKey<Boolean> KV_INDEX_ENABLED =
      ConfigKey.of("PREFIXLOG_KV_INDEX_ENABLED", ConfigTypes.bool())
          .defaultValue(true)
          .doc("keep the KV block index and the source statistics from `kv.events`");

  public static final ConfigKey<Duration> KV_STATS_INTERVAL =
      ConfigKey.of("PREFIXLOG_KV_STATS_INTERVAL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(10))
          .doc(
              "a changed source's statistics are published at most this often (at once when the"
                  + " source is new or was cleared; `up --demo` uses `1s`)");

  public static final ConfigKey<Duration> KV_SOURCE_EXPIRY =
      ConfigKey.of(
              "PREFIXLOG_KV_SOURCE_EXPIRY", ConfigTypes.duration("never: every source is kept"))
          .defaultValue(Duration.ofDays(7))
          .doc(
              "a KV source (an engine's endpoint, rank and topic) that sends no batch and no"
                  + " marker for longer than this, in stream time (the records' time, which a"
                  + " task moves on only while one of its sources sends), is expired: every block"
                  + " of it is tombstoned on `kv.block-index` in steps of `PREFIXLOG_BULK_BATCH`,"
                  + " and its statistics on `kv.source-stats`; if it sends again it starts afresh,"
                  + " as after a clear. Counted (`prefixlog_kv_sources_expired_total`), logged"
                  + " once per source. It trades the KV topics' and stores' growth with retired"
                  + " engines against an idle but live engine: one silent this long loses its"
                  + " index, and the blocks it still caches are unknown until stored again. `0`"
                  + " keeps every source for ever (the silence is still timed, so turning it on"
                  + " later judges each source by its true silence); otherwise it must be above"
                  + " `PREFIXLOG_MAX_CLOCK_SKEW`, by which a record ahead can move stream time on."
                  + " Sources a store kept before it are found in steps and timed from then");

  public static final ConfigKey<Integer> THREAD_FAILURE_LIMIT =
      ConfigKey.of("PREFIXLOG_THREAD_FAILURE_LIMIT", ConfigTypes.integer(1, 1000))
          .defaultValue(3)
          .doc(
              "this many stream-thread failures within the window stop the streams (`/health` 503"
                  + " with the reason) instead of replacing the thread once more");

  public static final ConfigKey<Duration> THREAD_FAILURE_WINDOW =
      ConfigKey.of("PREFIXLOG_THREAD_FAILURE_WINDOW", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(10))
          .doc("the sliding window of that count");

  public static final ConfigKey<Integer> BUFFERED_RECORDS =
      ConfigKey.of("PREFIXLOG_BUFFERED_RECORDS", ConfigTypes.integer(1, 100_000))
          .defaultValue(64)
          .doc(
              "input records a stream thread holds per partition before it stops fetching that"
                  + " partition (Kafka Streams' `buffered.records.per.partition`, 1,000 by"
                  + " default): with an agent's 0.5 MB requests, 1,000 a partition was gigabytes"
                  + " of heap. The heap an instance needs for them: input partitions (the raw"
                  + " topic's and the repartition topic's, of its tasks) × this × the largest"
                  + " requests");

  public static final ConfigKey<Long> ROCKSDB_MEMORY =
      ConfigKey.of("PREFIXLOG_ROCKSDB_MEMORY", ConfigTypes.size(0, 1L << 40))
          .defaultValue(256L << 20)
          .doc(
              "the off-heap memory all RocksDB stores of the process share: one block cache, the"
                  + " memtables charged to it (up to half) and the index and filter blocks in it"
                  + " (`BoundedRocksDbMemory`); `0`: Kafka Streams' defaults, 50 MiB of cache and"
                  + " up to 48 MiB of memtables per store and partition, unbounded in all. Size"
                  + " the container for the heap plus this plus ~10 %");

  public static final ConfigKey<Integer> OUTPUT_ZSTD_LEVEL =
      ConfigKey.of("PREFIXLOG_OUTPUT_ZSTD_LEVEL", ConfigTypes.integer(1, 22))
          .defaultValue(9)
          .doc(
              "the zstd level `session.deltas`, `requests.metadata`, `dlq` and the erasure"
                  + " acknowledgements are stored at (the topics' `compression.type=zstd` and"
                  + " `compression.zstd.level`): the stream app's producer writes lz4, cheap on"
                  + " the stream thread, and the broker recompresses to this level. 9 stores ~6 %"
                  + " fewer delta bytes than 3 on long agent sessions; chunk lookups and"
                  + " changelogs are stored at 3 (`TopicCompression`)");

  public static final ConfigKey<Long> BASE_CACHE_BYTES =
      ConfigKey.of("PREFIXLOG_BASE_CACHE_BYTES", ConfigTypes.size(0, 1L << 40))
          .defaultValue(64L << 20)
          .doc(
              "heap for the decoded base bodies all sessions of the process share (least recently"
                  + " used goes first). The bases store holds most bases as ops against the one"
                  + " before (its changelog carries deltas, not bodies); a base not in this cache"
                  + " is rebuilt from up to `PREFIXLOG_BASE_REBUILD_RECORDS` records. Size it for the"
                  + " live sessions' newest bases, about one body each; `0`: no cache");

  public static final ConfigKey<Long> LOOKUP_CACHE_BYTES =
      ConfigKey.of("PREFIXLOG_LOOKUP_CACHE_BYTES", ConfigTypes.size(0, 1L << 40))
          .defaultValue(64L << 20)
          .doc(
              "heap for each live chain's newest chunk hashes and fingerprints (16 bytes a chunk,"
                  + " ~6 % of a rendered prompt at 256-byte chunks), shared by the process: with"
                  + " them a turn hashes only its new chunks and its lookup record lists only"
                  + " their hashes; a chain not in it (evicted, restored, moved) gets one whole"
                  + " record. 64 MiB holds ~4 M chunks, about 2,000 sessions of 0.5 MB. As much"
                  + " again, bounded apart, holds each live chain's newest body and its rendering,"
                  + " from which the next turn renders only what it adds (a chain not in it is"
                  + " rendered whole: about 60 sessions of 0.5 MB at 64 MiB); `0`: every record"
                  + " whole and every chunk hashed and rendered");

  public static final ConfigKey<String> APPLICATION_SERVER =
      ConfigKey.of("PREFIXLOG_APPLICATION_SERVER", ConfigTypes.text())
          .documentedDefault("none (state queries off)")
          .doc(
              "`HOST:PORT` at which the other instances (and the UI) reach this instance's metrics"
                  + " endpoint (Kafka Streams `application.server`): turns on `GET"
                  + " /state/sessions/{session_key}` there, the session's live state (chain,"
                  + " turns, kept bases and their digests, last activity, expiry; never a body)"
                  + " answered from this instance's store or forwarded to the instance that holds"
                  + " the key. Its port is `PREFIXLOG_METRICS_PORT`'s as seen from the peers."
                  + " `auto:PORT`: this host's own address (the address its name resolves to),"
                  + " for instances started from one definition, as compose's `--scale` does");

  public static final ConfigKey<String> STATE_TOKEN =
      ConfigKey.of("PREFIXLOG_STATE_TOKEN", ConfigTypes.text())
          .documentedDefault("none")
          .secret()
          .doc(
              "bearer token the state queries must carry (`Authorization: Bearer`), ≥ 16"
                  + " characters, the same on every instance (a forwarded query carries it);"
                  + " required when `PREFIXLOG_APPLICATION_SERVER` is set and"
                  + " `PREFIXLOG_METRICS_HOST` is not a loopback address");

  public static final ConfigKey<Boolean> ALLOW_WEAKER_DELIVERY = CommonKeys.ALLOW_WEAKER_DELIVERY;

  /** Every setting of the stream app, in the README's order. */
  public static final ConfigDef DEFINITION =
      CommonKeys.withKafka(
          "stream app",
          List.of(
              BOOTSTRAP_SERVERS,
              TOPIC_PREFIX,
              APPLICATION_ID,
              UPGRADE_FROM,
              STATE_DIR,
              STREAM_THREADS,
              STANDBY_REPLICAS,
              PARTITIONS,
              STATE_PARTITIONS,
              REPLICATION_FACTOR,
              COMMIT_INTERVAL,
              MAX_BODY_BYTES,
              QUERY_CREDENTIALS,
              SESSION_MAX_BASES,
              SESSION_MAX_BASE_BYTES,
              KEYFRAME_INTERVAL,
              BASE_REBUILD_RECORDS,
              MAX_INSERTED_FRACTION,
              MIN_MATCH_BYTES,
              SESSION_TTL,
              SESSION_SEQ_RETENTION,
              DEDUP_WINDOW,
              EVICTION_INTERVAL,
              MAX_CLOCK_SKEW,
              BULK_BATCH,
              BULK_INTERVAL,
              RAW_RETENTION,
              OUTPUT_RETENTION,
              MAX_COMPACTION_LAG,
              CHUNK_LOOKUPS_ENABLED,
              CHUNK_SIZE_BYTES,
              KV_INDEX_ENABLED,
              KV_STATS_INTERVAL,
              KV_SOURCE_EXPIRY,
              THREAD_FAILURE_LIMIT,
              THREAD_FAILURE_WINDOW,
              BUFFERED_RECORDS,
              ROCKSDB_MEMORY,
              OUTPUT_ZSTD_LEVEL,
              BASE_CACHE_BYTES,
              LOOKUP_CACHE_BYTES,
              METRICS_HOST,
              METRICS_PORT,
              ALLOWED_HOSTS,
              APPLICATION_SERVER,
              STATE_TOKEN,
              ALLOW_WEAKER_DELIVERY));

  /** A state token shorter than this is refused: it would be guessed. */
  static final int MIN_STATE_TOKEN_LENGTH = 16;

  private final ConfigValues values;
  private final Map<String, String> kafka;

  private StreamAppConfig(ConfigValues values, Map<String, String> kafka) {
    this.values = values;
    this.kafka = Map.copyOf(kafka);
    checkTogether();
  }

  /** Reads and validates every setting. */
  public static StreamAppConfig fromSettings(Settings s) {
    return new StreamAppConfig(DEFINITION.parse(s), KafkaPassThrough.read(s));
  }

  /** The defaults, with overrides given by environment-variable name. */
  public static StreamAppConfig defaults(Map<String, String> overrides) {
    return fromSettings(Settings.of(overrides));
  }

  /** The value of any setting of {@link #DEFINITION}. */
  public <T> T get(ConfigKey<T> key) {
    return values.get(key);
  }

  public String bootstrapServers() {
    return values.get(BOOTSTRAP_SERVERS);
  }

  public String topicPrefix() {
    return values.get(TOPIC_PREFIX);
  }

  public String applicationId() {
    return values.get(APPLICATION_ID);
  }

  /**
   * The formats to write: the newest generation, or the one {@code PREFIXLOG_UPGRADE_FROM} names.
   */
  public FormatGeneration formatsToWrite() {
    return FormatGenerations.KNOWN.toWrite(values.get(UPGRADE_FROM));
  }

  public Path stateDir() {
    return values.get(STATE_DIR);
  }

  public int streamThreads() {
    return values.get(STREAM_THREADS);
  }

  public int standbyReplicas() {
    return values.get(STANDBY_REPLICAS);
  }

  public int partitions() {
    return values.get(PARTITIONS);
  }

  /** {@code PREFIXLOG_STATE_PARTITIONS}, or {@code PREFIXLOG_PARTITIONS} when unset. */
  public int statePartitions() {
    Integer statePartitions = values.get(STATE_PARTITIONS);
    return statePartitions == null ? partitions() : statePartitions;
  }

  public short replicationFactor() {
    return values.get(REPLICATION_FACTOR).shortValue();
  }

  public Duration commitInterval() {
    return values.get(COMMIT_INTERVAL);
  }

  /** The query parameters no stored path keeps. */
  public QueryCredentials queryCredentials() {
    return values.get(QUERY_CREDENTIALS);
  }

  public long maxBodyBytes() {
    return values.get(MAX_BODY_BYTES);
  }

  /** The delta encoder's settings. */
  public EncoderSettings encoder() {
    return new EncoderSettings(
        values.get(SESSION_MAX_BASES),
        values.get(SESSION_MAX_BASE_BYTES),
        values.get(KEYFRAME_INTERVAL),
        values.get(MAX_INSERTED_FRACTION),
        EncoderSettings.DEFAULTS.goodEnoughFraction(),
        values.get(MIN_MATCH_BYTES));
  }

  /** Records of the bases store applied, at most, to rebuild a base the cache does not hold. */
  public int baseRebuildRecords() {
    return values.get(BASE_REBUILD_RECORDS);
  }

  /** See {@link #MAX_CLOCK_SKEW}. */
  public Duration maxClockSkew() {
    return values.get(MAX_CLOCK_SKEW);
  }

  public Duration sessionTtl() {
    return values.get(SESSION_TTL);
  }

  public Duration sessionSeqRetention() {
    return values.get(SESSION_SEQ_RETENTION);
  }

  public Duration dedupWindow() {
    return values.get(DEDUP_WINDOW);
  }

  public int bufferedRecords() {
    return values.get(BUFFERED_RECORDS);
  }

  public int outputZstdLevel() {
    return values.get(OUTPUT_ZSTD_LEVEL);
  }

  public long lookupCacheBytes() {
    return values.get(LOOKUP_CACHE_BYTES);
  }

  public long baseCacheBytes() {
    return values.get(BASE_CACHE_BYTES);
  }

  public int bulkBatch() {
    return values.get(BULK_BATCH);
  }

  public Duration bulkInterval() {
    return values.get(BULK_INTERVAL);
  }

  public Duration evictionInterval() {
    return values.get(EVICTION_INTERVAL);
  }

  public Duration rawRetention() {
    return values.get(RAW_RETENTION);
  }

  public Duration outputRetention() {
    return values.get(OUTPUT_RETENTION);
  }

  public Duration maxCompactionLag() {
    return values.get(MAX_COMPACTION_LAG);
  }

  public String metricsHost() {
    return values.get(METRICS_HOST);
  }

  /** The names the metrics, health and state endpoint answer to. */
  public HostCheck allowedHosts() {
    return values.get(ALLOWED_HOSTS);
  }

  /** -1: no endpoint. */
  public int metricsPort() {
    return values.get(METRICS_PORT);
  }

  /**
   * {@code PREFIXLOG_APPLICATION_SERVER} as host and port, or null when state queries are off.
   * Checked at construction.
   */
  public HostAndPort applicationServer() {
    String value = values.get(APPLICATION_SERVER);
    return value == null || value.isBlank() ? null : HostAndPort.parse(APPLICATION_SERVER, value);
  }

  /** The token state queries must carry, or null (loopback only). */
  public String stateToken() {
    String token = values.get(STATE_TOKEN);
    return token == null || token.isBlank() ? null : token;
  }

  /** A host and a port, as Kafka Streams' {@code application.server} takes them. */
  public record HostAndPort(String host, int port) {
    /**
     * The host that stands for this machine's own address. Containers scaled from one service
     * definition share their environment, so none can name itself there; each resolves its own name
     * (Docker maps it to the container's address on its network) when the config is read.
     */
    static final String AUTO = "auto";

    static HostAndPort parse(ConfigKey<String> key, String value) {
      int colon = value.lastIndexOf(':');
      String host = colon <= 0 ? "" : value.substring(0, colon).strip();
      int port;
      try {
        port = colon < 0 ? -1 : Integer.parseInt(value.substring(colon + 1).strip());
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (host.isEmpty() || port < 1 || port > 65535) {
        throw new ConfigException(
            key.name() + " must be HOST:PORT (port 1-65535), got \"" + value + "\"");
      }
      if (host.equals(AUTO)) {
        try {
          host = InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
          throw new ConfigException(
              key.name() + " is " + value + ", and this host's name does not resolve: " + e);
        }
      }
      return new HostAndPort(host, port);
    }

    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  public boolean chunkLookupsEnabled() {
    return values.get(CHUNK_LOOKUPS_ENABLED);
  }

  public int chunkSizeBytes() {
    return values.get(CHUNK_SIZE_BYTES).intValue();
  }

  public boolean kvIndexEnabled() {
    return values.get(KV_INDEX_ENABLED);
  }

  public Duration kvStatsInterval() {
    return values.get(KV_STATS_INTERVAL);
  }

  /** How long a KV source may be silent before it is expired; zero: never. */
  public Duration kvSourceExpiry() {
    return values.get(KV_SOURCE_EXPIRY);
  }

  public int threadFailureLimit() {
    return values.get(THREAD_FAILURE_LIMIT);
  }

  public Duration threadFailureWindow() {
    return values.get(THREAD_FAILURE_WINDOW);
  }

  /** The RocksDB stores' shared memory budget in bytes; 0: Kafka Streams' per-store defaults. */
  public long rocksDbMemoryBytes() {
    return values.get(ROCKSDB_MEMORY);
  }

  /** Kafka client settings passed through ({@code PREFIXLOG_KAFKA_*}). */
  public Map<String, String> kafka() {
    return kafka;
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix());
  }

  /**
   * The largest record the app reads or writes: a keyframe holds the whole body, which JSON
   * escaping or base64 can grow by a third or more, plus metadata ({@link RecordLimits}, which the
   * embedded broker's limits derive from too).
   */
  public long maxRecordBytes() {
    return RecordLimits.maxRecordBytes(maxBodyBytes());
  }

  @Override
  public String toString() {
    return values.toString();
  }

  /** The rules that tie settings together. */
  private void checkTogether() {
    if (evictionInterval().compareTo(sessionTtl()) > 0) {
      throw new ConfigException(
          order(EVICTION_INTERVAL, "must be at most", SESSION_TTL)
              + ": idle sessions would keep their bases for up to the interval");
    }
    // A delta names its base by seq; a session that stays idle for less than the TTL keeps
    // encoding against bases written before its pause. Those must still be in the deltas topic.
    if (sessionTtl().compareTo(outputRetention()) >= 0) {
      throw new ConfigException(
          order(SESSION_TTL, "must be below", OUTPUT_RETENTION)
              + ": a delta could name a base that retention has already deleted");
    }
    // A session idle past the seq retention starts a new chain, whose 8-digit id must not meet
    // one of its older chains' still in the topics (their keys would repeat, and compaction would
    // replace the older turns). When that idle time is at least the outputs' retention, the older
    // chain's records are past their retention as the new chain begins, so a session has a
    // handful of chains in the topics at most. The TTL is below both, so it cannot outlast the
    // chain.
    if (sessionSeqRetention().compareTo(outputRetention()) < 0) {
      throw new ConfigException(
          order(SESSION_SEQ_RETENTION, "must be at least", OUTPUT_RETENTION)
              + ": a session's new chain would start while its older chains' records are still"
              + " in the topics, and an 8-digit chain id could repeat among them");
    }
    // A record up to the skew ahead moves stream time on by that much at once: an expiry within
    // it could retire a source that has just sent.
    if (!kvSourceExpiry().isZero() && kvSourceExpiry().compareTo(maxClockSkew()) <= 0) {
      throw new ConfigException(
          order(KV_SOURCE_EXPIRY, "must be 0 or above", MAX_CLOCK_SKEW)
              + ": one record ahead of the clock could expire a source that has just sent");
    }
    checkStateQueries();
  }

  /**
   * The state queries show session keys and the digests of their bodies (never a body): served on
   * loopback they need nothing more, beyond it a token, as the UI does.
   */
  private void checkStateQueries() {
    String token = stateToken();
    if (token != null && token.length() < MIN_STATE_TOKEN_LENGTH) {
      throw new ConfigException(
          STATE_TOKEN.name()
              + " must be at least "
              + MIN_STATE_TOKEN_LENGTH
              + " characters, got "
              + token.length());
    }
    if (applicationServer() != null
        && (token == null || UnsafeDefaults.isPlaceholder(token))
        && metricsPort() >= 0
        && !UnsafeDefaults.isLoopback(metricsHost())) {
      throw new ConfigException(
          APPLICATION_SERVER.name()
              + " turns on the state queries, and "
              + METRICS_HOST.name()
              + " ("
              + metricsHost()
              + ") is reachable beyond this machine: set "
              + STATE_TOKEN.name()
              + " (not a placeholder; the same on every instance) so that only its holders read"
              + " the sessions' state");
    }
  }

  private String order(ConfigKey<Duration> a, String relation, ConfigKey<Duration> b) {
    return a.name()
        + " ("
        + a.show(values.get(a))
        + ") "
        + relation
        + " "
        + b.name()
        + " ("
        + b.show(values.get(b))
        + ")";
  }
}
