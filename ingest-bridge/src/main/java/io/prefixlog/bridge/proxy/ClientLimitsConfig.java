package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import java.time.Duration;

/**
 * What a client connection may hold without doing its part ({@link ClientConnections}): how many
 * are open at once, and how long a client may take for its request head or stay silent.
 */
public record ClientLimitsConfig(int maxConnections, Duration headerTimeout, Duration idleTimeout) {
  // Far above what one proxy in front of an engine serves (the engine batches a few hundred
  // requests), far below a default file descriptor limit; an idle connection costs a few KiB.
  public static final ConfigKey<Integer> MAX_CONNECTIONS =
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

  public static final ConfigKey<Duration> IDLE_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(60))
          .doc(
              "the longest a client may stay silent while the proxy waits for it: between"
                  + " keep-alive requests, mid-body, or taking none of a response it has stopped"
                  + " reading (the engine's stream paused for it); waiting for the engine is"
                  + " `PREFIXLOG_PROXY_UPSTREAM_TIMEOUT`'s business, so a slow engine never trips"
                  + " it");

  static ClientLimitsConfig from(ConfigValues values) {
    return new ClientLimitsConfig(
        values.get(MAX_CONNECTIONS), values.get(HEADER_TIMEOUT), values.get(IDLE_TIMEOUT));
  }
}
