package io.prefixlog.streams.topology;

import io.prefixlog.streams.StreamAppMetrics;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.FailOnInvalidTimestamp;
import org.apache.kafka.streams.processor.TimestampExtractor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timestamp extractor of the app's input topics: a record's own timestamp (its capture time, as
 * the bridge writes it), but never more than {@code PREFIXLOG_MAX_CLOCK_SKEW} ahead of this
 * instance's wall clock.
 *
 * <p>Why: the session state counts time as stream time, the largest record timestamp a task has
 * seen, so without a bound one record from a producer whose clock runs ahead moves it for every
 * session of the task at once: 30 minutes ahead and the eviction punctuator drops every session's
 * bases (the TTL), a day ahead and the dedup window's segments expire, seven days ahead and one
 * punctuation deletes every session's state (the seq retention), so that every next turn starts a
 * new chain and a resend becomes a second turn. Held to the bound, such a record moves stream time
 * that far past the wall clock at most. The wall clock is the only reference the app has that a
 * producer cannot move; the bound is a margin for the producers' clocks, not a window of time that
 * events may legitimately be ahead.
 *
 * <p>The record is processed with the bound as its time, so the repartition topic (whose records
 * keep the time they were forwarded with, and whose source reads record timestamps), the stores,
 * the punctuators and the records written all see the bound; the event's {@code ts} is kept. A
 * timestamp behind the clock is never changed: an old record is a backlog, which must be judged by
 * when it was captured.
 *
 * <p>Each such record is counted ({@code prefixlog_record_time_clamped_total{topic}}); one line a
 * minute at most is logged per extractor (one per input topic), which says how many were not.
 *
 * <p>A negative timestamp fails the task, as Kafka Streams' default extractor does: a producer
 * cannot write one, so it is a broken record or broker, not data to guess a time for.
 *
 * <p>One instance serves every task of every stream thread: thread-safe.
 */
final class ClockSkewBound implements TimestampExtractor {
  private static final Logger LOGGER = LoggerFactory.getLogger(ClockSkewBound.class);
  private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

  private final long maxSkewMs;
  private final LongSupplier wallClock;
  private final StreamAppMetrics metrics;
  private final String keyName;
  private final TimestampExtractor strict = new FailOnInvalidTimestamp();

  private final Object logLock = new Object();
  private boolean logged;
  private long loggedNanos;
  private long notLogged;

  /**
   * @param maxSkew how far ahead of the wall clock a record's time may be
   * @param wallClock this instance's clock, epoch milliseconds
   * @param keyName what the logs call the records' key ({@code sessionKey}, {@code source})
   */
  ClockSkewBound(
      Duration maxSkew, LongSupplier wallClock, StreamAppMetrics metrics, String keyName) {
    if (maxSkew.isNegative()) {
      throw new IllegalArgumentException("maxSkew must not be negative: " + maxSkew);
    }
    this.maxSkewMs = maxSkew.toMillis();
    this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.keyName = Objects.requireNonNull(keyName, "keyName");
  }

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    long timestamp = strict.extract(record, partitionTime);
    long now = wallClock.getAsLong();
    long bound = now > Long.MAX_VALUE - maxSkewMs ? Long.MAX_VALUE : now + maxSkewMs;
    if (timestamp <= bound) {
      return timestamp;
    }
    metrics.recordTimeClamped(record.topic()).increment();
    log(record, timestamp, bound, now);
    return bound;
  }

  private void log(ConsumerRecord<Object, Object> record, long timestamp, long bound, long now) {
    long since;
    synchronized (logLock) {
      long nanos = System.nanoTime();
      if (logged && nanos - loggedNanos < LOG_EVERY_NANOS) {
        notLogged++;
        return;
      }
      logged = true;
      loggedNanos = nanos;
      since = notLogged;
      notLogged = 0;
    }
    LOGGER
        .atWarn()
        .setMessage(
            "record timestamp ahead of this instance's clock by more than PREFIXLOG_MAX_CLOCK_SKEW;"
                + " processed at the bound, the event keeps its ts (a producer's clock runs ahead,"
                + " or this instance's is behind)")
        .addKeyValue("topic", record.topic())
        .addKeyValue("partition", record.partition())
        .addKeyValue("offset", record.offset())
        .addKeyValue(keyName, record.key())
        .addKeyValue("timestamp", timestamp)
        .addKeyValue("aheadMs", timestamp - now)
        .addKeyValue("processedAt", bound)
        .addKeyValue("sameSinceLastLine", since)
        .log();
  }
}
