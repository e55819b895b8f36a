package io.prefixlog.schemas;

import java.util.Objects;
import org.apache.kafka.common.serialization.Serde;

/**
 * A topic as a typed value: its name, how its keys and values are encoded, and the cleanup policy
 * the contract gives it (docs/design.md#topics).
 */
public record Topic<K, V>(
    String name, Serde<K> keySerde, Serde<V> valueSerde, CleanupPolicy cleanupPolicy) {

  public Topic {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keySerde, "keySerde");
    Objects.requireNonNull(valueSerde, "valueSerde");
    Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
    if (name.isBlank()) {
      throw new IllegalArgumentException("topic name must not be blank");
    }
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
