package io.prefixlog.streams.errors;

import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.request.Rejection;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.dlq.DeadLetter;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a rejected input into a dead letter, forwards it to the dead-letter sink and counts it by
 * reason. The letter keeps the input's exact key and value bytes, unless the copy would not fit in
 * a record (a raw record over about three quarters of the limit, base64 growing it by a third):
 * then it keeps a prefix of the value with the whole's length and SHA-256 ({@link #letter}). A
 * letter the producer refused would fail the task's transaction and the input would be processed
 * again, forever. The log line names only where the input came from and why it was rejected.
 */
public final class DeadLetters {
  public static final String PRODUCER = "stream-app";
  static final String COUNTER = "prefixlog_dead_letters_total";
  static final String COUNTER_HELP = "Inputs rejected to the dead-letter topic, by reason.";
  private static final Logger LOGGER = LoggerFactory.getLogger(DeadLetters.class);

  private final MeterRegistry metrics;
  private final String sinkName;

  public DeadLetters(MeterRegistry metrics, String sinkName) {
    this.metrics = metrics;
    this.sinkName = sinkName;
  }

  /** Forwards the dead letter of {@code input} (key bytes, value bytes) and counts it. */
  public void send(
      ProcessorContext<Object, Object> context,
      Record<?, byte[]> input,
      byte[] keyBytes,
      Rejection rejection) {
    SourcePosition origin = SourcePosition.of(context, input);
    DeadLetter letter =
        letter(
            context.currentSystemTimeMs(),
            origin.topic(),
            origin.partition(),
            origin.offset(),
            rejection.reason(),
            rejection.detail(),
            keyBytes,
            input.value(),
            maxRequestSize(context.appConfigs()));
    context.forward(new Record<Object, Object>(keyBytes, letter, input.timestamp()), sinkName);
    count(metrics, letter);
  }

  /**
   * The dead letter of an input, no bigger than {@code maxRecordBytes} as a record: whole when it
   * fits, else with as long a prefix of the value as fits, marked truncated, with the whole value's
   * length and SHA-256.
   */
  public static DeadLetter letter(
      long ts,
      String topic,
      Integer partition,
      Long offset,
      String reason,
      String detail,
      byte[] key,
      byte[] value,
      long maxRecordBytes) {
    Base64.Encoder base64 = Base64.getEncoder();
    String originalKey = key == null ? null : base64.encodeToString(key);
    long budget = RecordLimits.deadLetterValueBudget(maxRecordBytes, key == null ? 0 : key.length);
    boolean whole = value == null || value.length <= budget;
    byte[] kept = whole ? value : Arrays.copyOf(value, (int) budget);
    return new DeadLetter(
        DeadLetter.SCHEMA_VERSION,
        ts,
        PRODUCER,
        topic,
        partition,
        offset,
        reason,
        detail,
        originalKey,
        kept == null ? null : base64.encodeToString(kept),
        whole ? null : Boolean.TRUE,
        whole ? null : (long) value.length,
        whole ? null : Sha256.hex(value));
  }

  /**
   * The largest record the Streams producer in these settings takes: its {@code max.request.size}
   * (Kafka's 1 MiB when none is set), and no more than its {@code buffer.memory} (32 MiB when none
   * is set), which it also refuses records beyond. Every record the app writes, a dead letter
   * included, must fit.
   */
  public static long maxRequestSize(Map<String, Object> appConfigs) {
    long request = producerSetting(appConfigs, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1L << 20);
    long buffer = producerSetting(appConfigs, ProducerConfig.BUFFER_MEMORY_CONFIG, 32L << 20);
    return Math.min(request, buffer);
  }

  private static long producerSetting(Map<String, Object> appConfigs, String name, long fallback) {
    Object value = appConfigs.get(StreamsConfig.producerPrefix(name));
    if (value == null) {
      value = appConfigs.get(name);
    }
    if (value == null) {
      return fallback;
    }
    return value instanceof Number number
        ? number.longValue()
        : Long.parseLong(value.toString().trim());
  }

  /** Counts a letter by reason and logs where its input came from. */
  static void count(MeterRegistry metrics, DeadLetter letter) {
    Meters.counter(metrics, COUNTER, COUNTER_HELP, "reason", letter.reason()).increment();
    LOGGER
        .atWarn()
        .setMessage("input dead-lettered")
        .addKeyValue("topic", letter.sourceTopic())
        .addKeyValue("partition", letter.sourcePartition())
        .addKeyValue("offset", letter.sourceOffset())
        .addKeyValue("reason", letter.reason())
        .addKeyValue("detail", letter.detail())
        .addKeyValue("truncated", letter.isTruncated())
        .log();
  }
}
