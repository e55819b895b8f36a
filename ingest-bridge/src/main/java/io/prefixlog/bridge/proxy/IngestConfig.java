package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;

/**
 * The ingest endpoint ({@link IngestHandler}): its bearer token (none: the endpoint is off) and how
 * much it reads at once. {@link #toString()} never shows the token.
 */
public record IngestConfig(String token, long maxBytes, int maxConcurrent) {
  public static final ConfigKey<String> TOKEN =
      ConfigKey.of("PREFIXLOG_INGEST_TOKEN", ConfigTypes.text())
          .documentedDefault("none (endpoint off)")
          .secret()
          .doc(
              "bearer token of the ingest endpoint `POST /prefixlog/v1/events`, ≥ 16 characters;"
                  + " a placeholder is refused beyond loopback");

  public static final ConfigKey<Long> MAX_BYTES =
      ConfigKey.of("PREFIXLOG_INGEST_MAX_BYTES", ConfigTypes.size(1024, 1L << 31))
          .defaultValue(64L << 20)
          .doc("largest ingest request");

  // Four bodies of up to 64 MiB being read and validated at once: 256 MiB at the most, whatever
  // the number of ingest clients.
  public static final ConfigKey<Integer> MAX_CONCURRENT =
      ConfigKey.of("PREFIXLOG_INGEST_MAX_CONCURRENT", ConfigTypes.integer(1, 1024))
          .defaultValue(4)
          .doc(
              "ingest requests read at once (each buffered up to `PREFIXLOG_INGEST_MAX_BYTES`);"
                  + " one more gets 503 with `Retry-After: 1`");

  public IngestConfig {
    if (token != null && token.length() < 16) {
      throw new ConfigException(
          TOKEN.name() + ": expected at least 16 characters, got " + token.length());
    }
  }

  static IngestConfig from(ConfigValues values) {
    return new IngestConfig(values.get(TOKEN), values.get(MAX_BYTES), values.get(MAX_CONCURRENT));
  }

  /** True when a token is set, so the endpoint answers. */
  boolean enabled() {
    return token != null;
  }

  @Override
  public String toString() {
    return "IngestConfig[token="
        + TOKEN.show(token)
        + ", maxBytes="
        + maxBytes
        + ", maxConcurrent="
        + maxConcurrent
        + "]";
  }
}
