package io.prefixlog.streams.errors;

import java.util.List;
import java.util.Map;
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

  private InputDeadLetters deadLetters;

  @Override
  public void configure(Map<String, ?> configs) {
    this.deadLetters = new InputDeadLetters(configs);
  }

  @Override
  public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception e) {
    if (e instanceof StreamsException || record == null) {
      return Response.fail();
    }
    // The detail names the processor and the exception class, never its message: a message may
    // quote the input.
    String detail = e.getClass().getName() + " in processor " + context.processorNodeId();
    return Response.resume(List.of(deadLetters.of(context, record.timestamp(), REASON, detail)));
  }
}
