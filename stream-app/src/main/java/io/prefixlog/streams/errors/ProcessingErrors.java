package io.prefixlog.streams.errors;

import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Kafka Streams' {@code processing.exception.handler}: an input that makes a processor throw
 * becomes one dead letter with reason {@code processing_error} (its exact bytes, bounded like every
 * letter) and processing resumes with the next input. Failing would replace the thread, which would
 * meet the same input and throw again, forever.
 *
 * <p>A {@link StreamsException} (a state store or the changelog failing, or a {@link
 * PartialWriteException}: a processor that had begun to write the input's outcome) is not the
 * input's fault, or cannot be skipped without committing half of its outcome: it fails the thread,
 * exactly-once aborts the task's transaction, and the uncaught-exception handler's failure window
 * decides whether to replace the thread. So does a failure of a punctuator, which has no input to
 * dead-letter (Kafka Streams passes no record then).
 */
public final class ProcessingErrors implements ProcessingExceptionHandler {
  static final String REASON = "processing_error";
  private static final JsonSerde<DeadLetter> SERDE = JsonSerde.of(DeadLetter.class);

  private ErrorWiring wiring;
  private Map<String, ?> configs;

  @Override
  public void configure(Map<String, ?> configs) {
    this.wiring = ErrorWiring.from(configs);
    this.configs = configs;
  }

  @Override
  public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception e) {
    if (e instanceof StreamsException || record == null) {
      return Response.fail();
    }
    // The detail names the processor and the exception class, never its message: a message may
    // quote the input.
    String detail = e.getClass().getName() + " in processor " + context.processorNodeId();
    return Response.resume(
        List.of(deadLetter(wiring, configs, context, record.timestamp(), REASON, detail)));
  }

  /** The dead-letter record of the input {@code context} points at, counted. */
  @SuppressWarnings("unchecked")
  static ProducerRecord<byte[], byte[]> deadLetter(
      ErrorWiring wiring,
      Map<String, ?> configs,
      ErrorHandlerContext context,
      long timestamp,
      String reason,
      String detail) {
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
