package io.prefixlog.streams;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.delta.DeltaEncoder;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Every setting of the stream app, validated on construction. {@link #fromSettings} reads them from
 * environment variables (names below) or a properties file named by {@code PREFIXLOG_CONFIG_FILE};
 * {@code PREFIXLOG_KAFKA_*} settings pass through to the Kafka clients ({@code
 * PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes {@code security.protocol}).
 *
 * @param bootstrapServers {@code PREFIXLOG_BOOTSTRAP_SERVERS}, default {@code 127.0.0.1:9092}
 * @param topicPrefix {@code PREFIXLOG_TOPIC_PREFIX}, default {@code prefixlog.}
 * @param applicationId {@code PREFIXLOG_APPLICATION_ID}, default {@code prefixlog-stream-app}; the
 *     consumer group and the prefix of the changelog topics
 * @param stateDir {@code PREFIXLOG_STATE_DIR}, default {@code ./var/streams}
 * @param streamThreads {@code PREFIXLOG_STREAM_THREADS}, default 1
 * @param standbyReplicas {@code PREFIXLOG_STANDBY_REPLICAS}, default 0
 * @param partitions {@code PREFIXLOG_PARTITIONS}, default 6: partitions of the topics the app
 *     creates
 * @param statePartitions {@code PREFIXLOG_STATE_PARTITIONS}, default {@code PREFIXLOG_PARTITIONS}:
 *     partitions of the internal topic that routes raw events to the session state, and so of the
 *     state (the most instances × threads that can share the session work). Fixed at the first
 *     start: the input topics can then gain partitions without moving any session's state
 * @param replicationFactor {@code PREFIXLOG_REPLICATION_FACTOR}, default 1
 * @param commitInterval {@code PREFIXLOG_COMMIT_INTERVAL}, default 100ms (exactly-once's default)
 * @param maxBodyBytes {@code PREFIXLOG_MAX_BODY_BYTES}, default 16MiB: the capture limit
 * @param encoder {@code PREFIXLOG_SESSION_MAX_BASES} (4), {@code PREFIXLOG_SESSION_MAX_BASE_BYTES}
 *     (8MiB), {@code PREFIXLOG_KEYFRAME_INTERVAL} (32), {@code PREFIXLOG_MAX_INSERTED_FRACTION}
 *     (0.5), {@code PREFIXLOG_MIN_MATCH_BYTES} (64)
 * @param sessionTtl {@code PREFIXLOG_SESSION_TTL}, default 30m: idle sessions lose their bases
 * @param sessionSeqRetention {@code PREFIXLOG_SESSION_SEQ_RETENTION}, default 7d: how long an idle
 *     session's seq counter is kept (at least the deltas' retention, so seq keys never repeat while
 *     older records with the same key are still in the topic)
 * @param evictionInterval {@code PREFIXLOG_EVICTION_INTERVAL}, default 1m: how often the idle
 *     sessions are looked for
 * @param rawRetention {@code PREFIXLOG_RAW_RETENTION}, default 24h
 * @param outputRetention {@code PREFIXLOG_OUTPUT_RETENTION}, default 7d: retention of the
 *     compact,delete outputs (deltas, lookups) and of the dead letters
 * @param metricsHost {@code PREFIXLOG_METRICS_HOST}, default 127.0.0.1
 * @param metricsPort {@code PREFIXLOG_METRICS_PORT}, default 9464; -1 disables the endpoint
 * @param chunkLookupsEnabled {@code PREFIXLOG_CHUNK_LOOKUPS_ENABLED}, default true: emit one
 *     chunk-hash lookup record per request to {@code chunk.lookups}
 * @param chunkSizeBytes {@code PREFIXLOG_CHUNK_SIZE_BYTES}, default 256: bytes of the rendered
 *     prompt per chunk (about 64 tokens), from 16 to 1 MiB
 * @param kvIndexEnabled {@code PREFIXLOG_KV_INDEX_ENABLED}, default true: keep the KV block index
 *     and the source statistics from {@code kv.events}
 * @param kvStatsInterval {@code PREFIXLOG_KV_STATS_INTERVAL}, default 10s: a changed source's
 *     statistics are emitted at most this often (at once when the source is new or cleared)
 * @param threadFailureLimit {@code PREFIXLOG_THREAD_FAILURE_LIMIT}, default 3: this many stream
 *     thread failures within the window stop the app (health 503 with the reason) instead of
 *     replacing the thread once more
 * @param threadFailureWindow {@code PREFIXLOG_THREAD_FAILURE_WINDOW}, default 10m: the sliding
 *     window of that count
 * @param maxCompactionLag {@code PREFIXLOG_MAX_COMPACTION_LAG}, default 1d: the compacted topics'
 *     and the stores' changelogs' {@code max.compaction.lag.ms}: a value replaced or tombstoned (by
 *     an erasure, say) is gone from the broker's disk within about this long, since the broker then
 *     rolls and cleans its segment whatever the dirty ratio
 * @param kafka Kafka client settings passed through ({@code PREFIXLOG_KAFKA_*})
 */
public record StreamAppConfig(
    String bootstrapServers,
    String topicPrefix,
    String applicationId,
    Path stateDir,
    int streamThreads,
    int standbyReplicas,
    int partitions,
    int statePartitions,
    short replicationFactor,
    Duration commitInterval,
    long maxBodyBytes,
    EncoderSettings encoder,
    Duration sessionTtl,
    Duration sessionSeqRetention,
    Duration dedupWindow,
    Duration evictionInterval,
    Duration rawRetention,
    Duration outputRetention,
    Duration maxCompactionLag,
    String metricsHost,
    int metricsPort,
    boolean chunkLookupsEnabled,
    int chunkSizeBytes,
    boolean kvIndexEnabled,
    Duration kvStatsInterval,
    int threadFailureLimit,
    Duration threadFailureWindow,
    Map<String, String> kafka) {

  public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";

  public StreamAppConfig {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(applicationId, "applicationId");
    Objects.requireNonNull(stateDir, "stateDir");
    Objects.requireNonNull(encoder, "encoder");
    kafka = Map.copyOf(kafka);
    if (kvStatsInterval.isZero() || kvStatsInterval.isNegative()) {
      throw new ConfigException(
          "PREFIXLOG_KV_STATS_INTERVAL=" + kvStatsInterval + ": expected a duration above zero");
    }
    positive("PREFIXLOG_SESSION_TTL", sessionTtl);
    positive("PREFIXLOG_EVICTION_INTERVAL", evictionInterval);
    positive("PREFIXLOG_DEDUP_WINDOW", dedupWindow);
    positive("PREFIXLOG_OUTPUT_RETENTION", outputRetention);
    positive("PREFIXLOG_MAX_COMPACTION_LAG", maxCompactionLag);
    if (statePartitions < 1) {
      throw new ConfigException(
          "PREFIXLOG_STATE_PARTITIONS=" + statePartitions + ": expected an integer from 1");
    }
    if (evictionInterval.compareTo(sessionTtl) > 0) {
      throw new ConfigException(
          "PREFIXLOG_EVICTION_INTERVAL ("
              + evictionInterval
              + ") must be at most PREFIXLOG_SESSION_TTL ("
              + sessionTtl
              + "): idle sessions would keep their bases for up to the interval");
    }
    // A delta names its base by seq; a session that stays idle for less than the TTL keeps
    // encoding against bases written before its pause. Those must still be in the deltas topic.
    if (sessionTtl.compareTo(outputRetention) >= 0) {
      throw new ConfigException(
          "PREFIXLOG_SESSION_TTL ("
              + sessionTtl
              + ") must be below PREFIXLOG_OUTPUT_RETENTION ("
              + outputRetention
              + "): a delta could name a base that retention has already deleted");
    }
    if (threadFailureWindow.isZero() || threadFailureWindow.isNegative()) {
      throw new ConfigException(
          "PREFIXLOG_THREAD_FAILURE_WINDOW="
              + threadFailureWindow
              + ": expected a duration above zero");
    }
    if (sessionSeqRetention.compareTo(sessionTtl) < 0) {
      throw new ConfigException(
          "PREFIXLOG_SESSION_SEQ_RETENTION ("
              + sessionSeqRetention
              + ") must be at least PREFIXLOG_SESSION_TTL ("
              + sessionTtl
              + ")");
    }
  }

  private static void positive(String key, Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw new ConfigException(key + "=" + value + ": expected a duration above zero");
    }
  }

  /** Reads and validates every setting. */
  public static StreamAppConfig fromSettings(Settings s) {
    EncoderSettings defaults = EncoderSettings.DEFAULTS;
    EncoderSettings encoder =
        new EncoderSettings(
            s.integer("PREFIXLOG_SESSION_MAX_BASES", defaults.maxBases(), 1, 64),
            s.bytes("PREFIXLOG_SESSION_MAX_BASE_BYTES", defaults.maxBaseBytes(), 1, 1L << 31),
            s.integer("PREFIXLOG_KEYFRAME_INTERVAL", defaults.keyframeInterval(), 1, 10_000),
            s.decimal("PREFIXLOG_MAX_INSERTED_FRACTION", defaults.maxInsertedFraction(), 0, 1),
            defaults.goodEnoughFraction(),
            s.integer(
                "PREFIXLOG_MIN_MATCH_BYTES",
                defaults.minMatchBytes(),
                DeltaEncoder.MIN_MATCH_FLOOR,
                1 << 20));
    int partitions = s.integer("PREFIXLOG_PARTITIONS", 6, 1, 10_000);
    return new StreamAppConfig(
        s.string("PREFIXLOG_BOOTSTRAP_SERVERS", DEFAULT_BOOTSTRAP),
        s.string("PREFIXLOG_TOPIC_PREFIX", Topics.DEFAULT_PREFIX),
        s.string("PREFIXLOG_APPLICATION_ID", "prefixlog-stream-app"),
        Path.of(s.string("PREFIXLOG_STATE_DIR", "var/streams")),
        s.integer("PREFIXLOG_STREAM_THREADS", 1, 1, 64),
        s.integer("PREFIXLOG_STANDBY_REPLICAS", 0, 0, 8),
        partitions,
        s.integer("PREFIXLOG_STATE_PARTITIONS", partitions, 1, 10_000),
        (short) s.integer("PREFIXLOG_REPLICATION_FACTOR", 1, 1, 16),
        s.duration("PREFIXLOG_COMMIT_INTERVAL", Duration.ofMillis(100)),
        s.bytes("PREFIXLOG_MAX_BODY_BYTES", RecordLimits.DEFAULT_MAX_BODY_BYTES, 1024, 256L << 20),
        encoder,
        s.duration("PREFIXLOG_SESSION_TTL", Duration.ofMinutes(30)),
        s.duration("PREFIXLOG_SESSION_SEQ_RETENTION", Duration.ofDays(7)),
        s.duration("PREFIXLOG_DEDUP_WINDOW", Duration.ofHours(24)),
        s.duration("PREFIXLOG_EVICTION_INTERVAL", Duration.ofMinutes(1)),
        s.duration("PREFIXLOG_RAW_RETENTION", Duration.ofHours(24)),
        s.duration("PREFIXLOG_OUTPUT_RETENTION", Duration.ofDays(7)),
        s.duration("PREFIXLOG_MAX_COMPACTION_LAG", Duration.ofDays(1)),
        s.string("PREFIXLOG_METRICS_HOST", "127.0.0.1"),
        s.integer("PREFIXLOG_METRICS_PORT", 9464, -1, 65535),
        s.bool("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", true),
        (int) s.bytes("PREFIXLOG_CHUNK_SIZE_BYTES", 256, 16, 1 << 20),
        s.bool("PREFIXLOG_KV_INDEX_ENABLED", true),
        s.duration("PREFIXLOG_KV_STATS_INTERVAL", Duration.ofSeconds(10)),
        s.integer("PREFIXLOG_THREAD_FAILURE_LIMIT", 3, 1, 1000),
        s.duration("PREFIXLOG_THREAD_FAILURE_WINDOW", Duration.ofMinutes(10)),
        KafkaPassThrough.read(s));
  }

  /** The defaults, with overrides given by environment-variable name. */
  public static StreamAppConfig defaults(Map<String, String> overrides) {
    return fromSettings(Settings.of(overrides));
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix);
  }

  /**
   * The largest record the app reads or writes: a keyframe holds the whole body, which JSON
   * escaping or base64 can grow by a third or more, plus metadata ({@link RecordLimits}, which the
   * embedded broker's limits derive from too).
   */
  public long maxRecordBytes() {
    return RecordLimits.maxRecordBytes(maxBodyBytes);
  }
}
