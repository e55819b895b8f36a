package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the publisher keeps the events Kafka refuses ({@link SpillStore}), how much of them, and
 * how it resends and forces them. No directory: they are dropped, counted.
 */
public record SpillConfig(
    Path dir,
    long maxBytes,
    long segmentBytes,
    Duration retryInterval,
    Duration fsyncInterval,
    int format) {
  public static final ConfigKey<Path> DIR =
      ConfigKey.of("PREFIXLOG_SPILL_DIR", ConfigTypes.path())
          .documentedDefault("none (drop)")
          .doc("spill events Kafka refuses here and resend them, in order");

  public static final ConfigKey<Long> MAX_BYTES =
      ConfigKey.of("PREFIXLOG_SPILL_MAX_BYTES", ConfigTypes.size(1 << 20, 1L << 50))
          .defaultValue(1L << 30)
          .doc("spill bound; beyond it events are dropped (`reason=\"spill_full\"`)");

  public static final ConfigKey<Long> SEGMENT_BYTES =
      ConfigKey.of("PREFIXLOG_SPILL_SEGMENT_BYTES", ConfigTypes.size(64 << 10, 1L << 31))
          .defaultValue(64L << 20)
          .doc("spill segment size, at most `PREFIXLOG_SPILL_MAX_BYTES`");

  public static final ConfigKey<Duration> RETRY_INTERVAL =
      ConfigKey.of("PREFIXLOG_SPILL_RETRY_INTERVAL", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(1))
          .doc("how often a resend is tried while spilling");

  public static final ConfigKey<Duration> FSYNC_INTERVAL =
      ConfigKey.of(
              "PREFIXLOG_SPILL_FSYNC_INTERVAL",
              ConfigTypes.duration("force every batch of appends"))
          .defaultValue(Duration.ZERO)
          .documentedDefault("`0` (every batch)")
          .doc(
              "how often spilled events are forced to disk: a power loss can lose the appends of"
                  + " one interval (a process crash loses none); corrupt spill records are"
                  + " quarantined and counted (`prefixlog_proxy_spill_quarantined`)");

  public static final ConfigKey<Integer> FORMAT =
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

  /** A segment may not exceed the bound (checked once all three are set). */
  public SpillConfig {
    if (segmentBytes > maxBytes) {
      throw new ConfigException(
          SEGMENT_BYTES.name()
              + " ("
              + segmentBytes
              + ") must not exceed "
              + MAX_BYTES.name()
              + " ("
              + maxBytes
              + ")");
    }
  }

  static SpillConfig from(ConfigValues values) {
    return new SpillConfig(
        values.get(DIR),
        values.get(MAX_BYTES),
        values.get(SEGMENT_BYTES),
        values.get(RETRY_INTERVAL),
        values.get(FSYNC_INTERVAL),
        values.get(FORMAT));
  }

  /** False: no directory, what cannot be published is dropped. */
  boolean enabled() {
    return dir != null;
  }
}
