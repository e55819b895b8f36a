package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.schemas.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * How captured events reach Kafka ({@link EventPublisher}): the cluster and topic, the bounded
 * hand-off from the event loops, the publisher thread's pace and priority, the bounds of a record's
 * timestamp, and the producer settings passed through ({@code PREFIXLOG_KAFKA_*}). {@link
 * #toString()} shows the pass-through's names, never its values (they may hold credentials).
 */
public record PublishConfig(
    String bootstrapServers,
    String topicPrefix,
    int queueEvents,
    long queueBytes,
    Duration interval,
    int capturePriority,
    Duration maxClockSkew,
    Duration maxCaptureAge,
    Map<String, String> kafka) {
  public static final ConfigKey<String> BOOTSTRAP_SERVERS = CommonKeys.BOOTSTRAP_SERVERS;

  public static final ConfigKey<String> TOPIC_PREFIX =
      CommonKeys.TOPIC_PREFIX.doc("events go to `<prefix>requests.raw`");

  public static final ConfigKey<Integer> QUEUE_EVENTS =
      ConfigKey.of("PREFIXLOG_PROXY_QUEUE_EVENTS", ConfigTypes.integer(1, 10_000_000))
          .defaultValue(10_000)
          .doc("bound of the hand-off to the publisher, in events; full: counted drops");

  public static final ConfigKey<Long> QUEUE_BYTES =
      ConfigKey.of("PREFIXLOG_PROXY_QUEUE_BYTES", ConfigTypes.size(1 << 20, 64L << 30))
          .defaultValue(256L << 20)
          .doc("bound of the hand-off to the publisher, in bytes");

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
  public static final ConfigKey<Duration> INTERVAL =
      ConfigKey.of(
              "PREFIXLOG_PROXY_PUBLISH_INTERVAL",
              ConfigTypes.duration(
                  Duration.ZERO, Duration.ofSeconds(1), "from 0 (publish at every event) to 1s"))
          .defaultValue(Duration.ofMillis(200))
          .doc(
              "under load the publisher wakes this often to encode and send what queued meanwhile"
                  + " (0: at every event); events reach Kafka up to this (+ 5 ms linger) later");

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

  public static final ConfigKey<Boolean> ALLOW_WEAKER_DELIVERY = CommonKeys.ALLOW_WEAKER_DELIVERY;

  public PublishConfig {
    ConfigException.requireNotBlank(BOOTSTRAP_SERVERS, bootstrapServers);
    kafka = Map.copyOf(new TreeMap<>(kafka));
  }

  /**
   * {@link #ALLOW_WEAKER_DELIVERY} has no field: the pass-through's reader applies it to {@code
   * kafka} before this is built.
   */
  static PublishConfig from(ConfigValues values, Map<String, String> kafka) {
    return new PublishConfig(
        values.get(BOOTSTRAP_SERVERS),
        values.get(TOPIC_PREFIX),
        values.get(QUEUE_EVENTS),
        values.get(QUEUE_BYTES),
        values.get(INTERVAL),
        values.get(CAPTURE_PRIORITY),
        values.get(MAX_CLOCK_SKEW),
        values.get(MAX_CAPTURE_AGE),
        kafka);
  }

  public Topics topics() {
    return Topics.withPrefix(topicPrefix);
  }

  @Override
  public String toString() {
    return "PublishConfig[bootstrapServers="
        + bootstrapServers
        + ", topicPrefix="
        + topicPrefix
        + ", queueEvents="
        + queueEvents
        + ", queueBytes="
        + queueBytes
        + ", interval="
        + interval
        + ", capturePriority="
        + capturePriority
        + ", maxClockSkew="
        + maxClockSkew
        + ", maxCaptureAge="
        + maxCaptureAge
        + ", kafka="
        + new TreeMap<>(kafka).keySet()
        + "]";
  }
}
