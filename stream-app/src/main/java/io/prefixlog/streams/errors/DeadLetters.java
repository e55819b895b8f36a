package io.prefixlog.streams.errors;

import io.prefixlog.core.metrics.MetricsRegistry;
import io.prefixlog.core.request.Rejection;
import io.prefixlog.schemas.dlq.DeadLetter;
import java.util.Base64;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a rejected input into a dead letter, forwards it to the dead-letter sink and counts it by
 * reason. The letter keeps the input's exact key and value bytes; the log line names only where the
 * input came from and why it was rejected.
 */
public final class DeadLetters {
  public static final String PRODUCER = "stream-app";
  private static final Logger LOGGER = LoggerFactory.getLogger(DeadLetters.class);

  private final MetricsRegistry metrics;
  private final String sinkName;

  public DeadLetters(MetricsRegistry metrics, String sinkName) {
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
        new DeadLetter(
            DeadLetter.SCHEMA_VERSION,
            context.currentSystemTimeMs(),
            PRODUCER,
            origin.topic(),
            origin.partition(),
            origin.offset(),
            rejection.reason(),
            rejection.detail(),
            keyBytes == null ? null : Base64.getEncoder().encodeToString(keyBytes),
            input.value() == null ? null : Base64.getEncoder().encodeToString(input.value()));
    context.forward(new Record<Object, Object>(keyBytes, letter, input.timestamp()), sinkName);
    metrics
        .counter(
            "prefixlog_dead_letters_total",
            "Inputs rejected to the dead-letter topic, by reason.",
            "reason",
            rejection.reason())
        .increment();
    LOGGER
        .atWarn()
        .setMessage("input dead-lettered")
        .addKeyValue("topic", letter.sourceTopic())
        .addKeyValue("partition", letter.sourcePartition())
        .addKeyValue("offset", letter.sourceOffset())
        .addKeyValue("reason", rejection.reason())
        .addKeyValue("detail", rejection.detail())
        .log();
  }
}
