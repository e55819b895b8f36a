package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import java.time.Duration;

/**
 * What a client connection may hold without doing its part ({@link ClientConnections}): how many
 * are open at once, how long a client may take for its request head or stay silent, and how slowly
 * and for how long it may send a request body.
 */
public record ClientLimitsConfig(
    int maxConnections,
    Duration headerTimeout,
    Duration idleTimeout,
    long minBodyRate,
    Duration bodyRateWindow,
    Duration bodyDeadline) {
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

  /**
   * 1 KiB/s: the idle timeout alone let a client hold its connection (and, with a large body, an
   * engine connection) for ever with a byte a minute. A real client on the slowest link still in
   * use (GPRS, ~5 KB/s up) sends several times this; what falls below it for a whole window is not
   * sending a body but holding a connection.
   */
  public static final ConfigKey<Long> MIN_BODY_RATE =
      ConfigKey.of("PREFIXLOG_PROXY_MIN_BODY_RATE", ConfigTypes.size(1, 1L << 30))
          .defaultValue(1L << 10)
          .doc(
              "bytes per second a request body must arrive at, averaged over each"
                  + " `PREFIXLOG_PROXY_BODY_RATE_WINDOW`; a client below it is answered 408 (when no"
                  + " response started) and closed, counted (`kind=\"body_rate\"`). Time the proxy"
                  + " holds the body back (waiting for the engine) is not the client's and is not"
                  + " measured");

  /**
   * 30 s: long enough that a stall of a real link (a TCP retransmission back-off, a Wi-Fi hand-over
   * of several seconds) averages out, and the first window is the grace a body gets before it is
   * measured at all.
   */
  public static final ConfigKey<Duration> BODY_RATE_WINDOW =
      ConfigKey.of("PREFIXLOG_PROXY_BODY_RATE_WINDOW", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(30))
          .doc(
              "the window `PREFIXLOG_PROXY_MIN_BODY_RATE` is averaged over; the first window is"
                  + " the grace period before a body is measured");

  /**
   * 15 minutes: a 16 MiB body (the default capture limit, and larger than any real prompt) arrives
   * in it at 150 kbit/s, slower than any link a client of an inference engine uploads over; a
   * client that keeps just above the minimum rate is let go after it rather than never.
   */
  public static final ConfigKey<Duration> BODY_DEADLINE =
      ConfigKey.of("PREFIXLOG_PROXY_BODY_DEADLINE", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(15))
          .doc(
              "the longest a client may take to send a request body, from its head to its last"
                  + " byte, not counting time the proxy holds the body back; past it the client is"
                  + " answered 408 (when no response started) and closed, counted"
                  + " (`kind=\"body_deadline\"`)");

  static ClientLimitsConfig from(ConfigValues values) {
    return new ClientLimitsConfig(
        values.get(MAX_CONNECTIONS),
        values.get(HEADER_TIMEOUT),
        values.get(IDLE_TIMEOUT),
        values.get(MIN_BODY_RATE),
        values.get(BODY_RATE_WINDOW),
        values.get(BODY_DEADLINE));
  }
}
