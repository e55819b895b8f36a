package io.prefixlog.bridge.proxy;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timestamp of a raw event's record: its capture time ({@code ts}), so that what counts time
 * from it (the broker's retention, the stream app's stream time, the idle sessions, the dedup
 * window, the outputs' retention) counts from when the request arrived, not from when the bridge
 * published or, after a spill, resent it. Kafka takes a timestamp within bounds only, and retention
 * deletes what is old by it, so three kinds of event get the bridge's clock at the send instead,
 * counted by {@link Reason} and logged at most once a minute each, their {@code ts} kept as
 * captured:
 *
 * <ul>
 *   <li>{@link Reason#AHEAD}: captured further ahead of the bridge's clock than {@code
 *       PREFIXLOG_MAX_CLOCK_SKEW} (a middleware's clock runs ahead). The broker refuses a timestamp
 *       more than {@code message.timestamp.after.max.ms} ahead (1 h by default since Kafka 4.0),
 *       and the stream app would hold it to its own bound anyway.
 *   <li>{@link Reason#OLD}: older than {@code PREFIXLOG_MAX_CAPTURE_AGE} when sent (a long spill, a
 *       middleware's backlog). The raw topic deletes by record timestamp: a record older than its
 *       retention can be deleted before the stream app reads it, which would lose the event without
 *       a word.
 *   <li>{@link Reason#REFUSED}: the broker refused the capture time (its own bounds are tighter,
 *       {@code message.timestamp.before.max.ms}, or its clock differs from the bridge's): the event
 *       is sent again with the bridge's clock rather than dropped.
 * </ul>
 *
 * <p>Thread-safe: the publisher thread and the producer's callbacks use it.
 */
final class RecordTime {
  private static final Logger LOGGER = LoggerFactory.getLogger(RecordTime.class);
  private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

  /** The capture time of an event to be sent with the bridge's clock whatever its {@code ts}. */
  static final long SEND_TIME = -1;

  /** Why an event's record timestamp is the bridge's clock. */
  enum Reason {
    AHEAD,
    OLD,
    REFUSED;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final long maxSkewMs;
  private final long maxAgeMs;
  private final LongSupplier clock;
  private final ProxyMetrics metrics;
  private final Map<Reason, LogWindow> logged = new EnumMap<>(Reason.class);

  /** When a reason was last logged, and how many events had it since. */
  private static final class LogWindow {
    private boolean started;
    private long lastNanos;
    private long since;
  }

  /**
   * @param clock the bridge's wall clock, in epoch milliseconds
   */
  RecordTime(Duration maxSkew, Duration maxAge, LongSupplier clock, ProxyMetrics metrics) {
    this.maxSkewMs = maxSkew.toMillis();
    this.maxAgeMs = maxAge.toMillis();
    this.clock = clock;
    this.metrics = metrics;
    for (Reason reason : Reason.values()) {
      logged.put(reason, new LogWindow());
    }
  }

  /** Bounded by {@code PREFIXLOG_MAX_CLOCK_SKEW} and {@code PREFIXLOG_MAX_CAPTURE_AGE}. */
  static RecordTime of(PublishConfig publish, ProxyMetrics metrics) {
    return new RecordTime(
        publish.maxClockSkew(), publish.maxCaptureAge(), System::currentTimeMillis, metrics);
  }

  /**
   * The record timestamp of {@code event}, sent now: its capture time, or the bridge's clock when
   * that is out of bounds (counted) or the event was marked {@link #SEND_TIME}.
   */
  long of(EncodedEvent event) {
    long now = clock.getAsLong();
    long captured = event.captureMs();
    if (captured == SEND_TIME) {
      return now;
    }
    if (captured > now + maxSkewMs) {
      adjusted(Reason.AHEAD, event, captured, now);
      return now;
    }
    if (captured < now - maxAgeMs) {
      adjusted(Reason.OLD, event, captured, now);
      return now;
    }
    return captured;
  }

  /** Kafka refused {@code event}'s capture time: it is to be sent again with the clock's. */
  EncodedEvent refused(EncodedEvent event) {
    adjusted(Reason.REFUSED, event, event.captureMs(), clock.getAsLong());
    return event.atSendTime();
  }

  private void adjusted(Reason reason, EncodedEvent event, long captured, long now) {
    metrics.recordTimeAdjusted(reason).increment();
    long suppressed;
    LogWindow window = logged.get(reason);
    synchronized (window) {
      long nanos = System.nanoTime();
      if (window.started && nanos - window.lastNanos < LOG_EVERY_NANOS) {
        window.since++;
        return;
      }
      suppressed = window.since;
      window.started = true;
      window.lastNanos = nanos;
      window.since = 0;
    }
    var line =
        LOGGER
            .atWarn()
            .setMessage(
                "capture time out of the record timestamp's bounds; the record takes the bridge's"
                    + " clock, the event keeps its ts")
            .addKeyValue("reason", reason.label());
    if (!event.requestId().isEmpty()) {
      line = line.addKeyValue("requestId", event.requestId());
    }
    line.addKeyValue("sessionKey", event.key())
        .addKeyValue("ts", captured)
        .addKeyValue("clock", now)
        .addKeyValue("sameSinceLastLine", suppressed)
        .log();
  }
}
