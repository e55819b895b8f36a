package io.prefixlog.schemas;

import java.util.Objects;
import org.apache.kafka.common.serialization.Serde;

/**
 * A topic as a typed value: its name, how its keys and values are encoded, its role (which gives
 * the cleanup policy and what bounds its retention) and how the broker stores it
 * (docs/design.md#topics). What the stream app creates and checks at start is read from these, so a
 * new topic declares its policies here and nowhere else.
 */
public record Topic<K, V>(
    String name, Serde<K> keySerde, Serde<V> valueSerde, Role role, Compression compression) {

  public Topic {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keySerde, "keySerde");
    Objects.requireNonNull(valueSerde, "valueSerde");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(compression, "compression");
    if (name.isBlank()) {
      throw new IllegalArgumentException("topic name must not be blank");
    }
    if ((role == Role.INPUT) != (compression == Compression.AS_PRODUCED)) {
      throw new IllegalArgumentException(
          "topic "
              + name
              + ": an input is stored as its producers wrote it, and only an input is ("
              + role
              + ", "
              + compression
              + ")");
    }
  }

  /** The {@code cleanup.policy} of the topic's role. */
  public CleanupPolicy cleanupPolicy() {
    return role.cleanupPolicy;
  }

  /** What a topic is for, which decides how long its records stay. */
  public enum Role {
    /** Read by the stream app: deleted after {@code PREFIXLOG_RAW_RETENTION}. */
    INPUT(CleanupPolicy.DELETE),
    /**
     * An output keyed by a turn ({@code session_key/chain/seq}) or a sampled-out request: the keys
     * are unique, so compaction only removes erasure's tombstones and retention bounds it ({@code
     * PREFIXLOG_OUTPUT_RETENTION}, at most {@code PREFIXLOG_SESSION_SEQ_RETENTION}).
     */
    TURN_KEYED(CleanupPolicy.COMPACT_DELETE),
    /** State kept by key until a tombstone removes it. */
    STATE(CleanupPolicy.COMPACT),
    /** An output log deleted after {@code PREFIXLOG_OUTPUT_RETENTION}. */
    LOG(CleanupPolicy.DELETE);

    private final CleanupPolicy cleanupPolicy;

    Role(CleanupPolicy cleanupPolicy) {
      this.cleanupPolicy = cleanupPolicy;
    }
  }

  /** How the broker stores the topic's batches. */
  public enum Compression {
    /** As the producers wrote them (the inputs: the bridge's lz4, a middleware's choice). */
    AS_PRODUCED,
    /** zstd at a light level: records that are mostly hashes, cheap to write often. */
    LIGHT_ZSTD,
    /** zstd at {@code PREFIXLOG_OUTPUT_ZSTD_LEVEL}: the outputs kept for their content. */
    OUTPUT_ZSTD
  }

  /** Kafka's {@code cleanup.policy} values, as this project uses them. */
  public enum CleanupPolicy {
    DELETE("delete"),
    COMPACT("compact"),
    COMPACT_DELETE("compact,delete");

    private final String config;

    CleanupPolicy(String config) {
      this.config = config;
    }

    /** The value of the {@code cleanup.policy} topic setting. */
    public String config() {
      return config;
    }
  }
}
