package io.prefixlog.streams.errors;

import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * The dead letters of the handlers that skip an input ({@link DeserializationErrors}, {@link
 * ProcessingErrors}): Kafka configures each handler apart, and both need the same settings to write
 * and count a letter.
 */
final class InputDeadLetters {
  private static final JsonSerde<DeadLetter> SERDE = JsonSerde.of(DeadLetter.class);

  private final ErrorWiring wiring;
  private final Map<String, ?> configs;

  /** Fails at once when the app's {@link ErrorWiring} is missing, not at the first bad input. */
  InputDeadLetters(Map<String, ?> configs) {
    this.wiring = ErrorWiring.from(configs);
    this.configs = configs;
  }

  /** The dead-letter record of the input {@code context} points at, counted. */
  @SuppressWarnings("unchecked")
  ProducerRecord<byte[], byte[]> of(
      ErrorHandlerContext context, long timestamp, String reason, String detail) {
    // Behind the repartition step the context names the internal topic; the stamp names the raw
    // record an operator can find (see SourcePosition).
    SourcePosition origin =
        SourcePosition.fromHeaders(context.headers())
            .orElse(
                new SourcePosition(
                    context.topic(),
                    context.topic() == null ? null : context.partition(),
                    context.topic() == null ? null : context.offset()));
    DeadLetter letter =
        DeadLetters.letter(
            System.currentTimeMillis(),
            origin.topic(),
            origin.partition(),
            origin.offset(),
            reason,
            detail,
            context.sourceRawKey(),
            context.sourceRawValue(),
            DeadLetters.maxRequestSize((Map<String, Object>) configs));
    DeadLetters.count(wiring.metrics(), letter);
    return new ProducerRecord<>(
        wiring.deadLetterTopic(), null, timestamp, context.sourceRawKey(), SERDE.toBytes(letter));
  }
}
