package io.prefixlog.streams.errors;

import io.micrometer.core.instrument.MeterRegistry;
import io.prefixlog.core.metrics.Meters;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' {@code production.exception.handler}: decides, per exception class, whether a
 * record the app cannot write is skipped (counted in {@code
 * prefixlog_production_errors_total{topic,reason}}) or fails the thread.
 *
 * <ul>
 *   <li>Skipped: the record itself is the problem and no retry can change it. {@code
 *       record_too_large} (RecordTooLargeException, RecordBatchTooLargeException), {@code
 *       invalid_record} (the broker refused its content: InvalidRecordException,
 *       CorruptRecordException), {@code serialization_error} (a value the serializer cannot write).
 *       Failing would make the replacement thread produce the same record again, forever.
 *   <li>Retried: a {@link RetriableException} (a slow broker, too few replicas): Streams retries
 *       the task from its last commit, as its default handler does.
 *   <li>Failed: everything else (authorization, an unknown topic, a broken cluster): infrastructure
 *       errors go to the uncaught-exception handler, whose failure window stops the app and reports
 *       it rather than replacing threads forever.
 * </ul>
 *
 * <p>Under exactly-once a skipped send still leaves the transaction aborted when the producer
 * itself refused the record (a client-side RecordTooLargeException puts it in an abortable state):
 * the app therefore bounds what it writes ({@link DeadLetters#letter}) instead of relying on this
 * handler, which remains the guard for at-least-once runs and broker-side refusals.
 */
public final class ProductionErrors implements ProductionExceptionHandler {
  static final String COUNTER = "prefixlog_production_errors_total";
  private static final Logger LOGGER = LoggerFactory.getLogger(ProductionErrors.class);

  private MeterRegistry metrics;

  @Override
  public void configure(Map<String, ?> configs) {
    metrics = ErrorWiring.from(configs).metrics();
  }

  @Override
  public Response handleError(
      ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
    String reason = reason(exception);
    count(context, record.topic(), reason, exception);
    return switch (reason) {
      case "record_too_large", "invalid_record" -> Response.resume();
      case "retriable" -> Response.retry();
      default -> Response.fail();
    };
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Response handleSerializationError(
      ErrorHandlerContext context,
      ProducerRecord record,
      Exception exception,
      SerializationExceptionOrigin origin) {
    count(context, record.topic(), "serialization_error", exception);
    return Response.resume();
  }

  /** The stable reason code of a production error. */
  static String reason(Exception exception) {
    if (exception instanceof RecordTooLargeException
        || exception instanceof RecordBatchTooLargeException) {
      return "record_too_large";
    }
    if (exception instanceof InvalidRecordException
        || exception instanceof CorruptRecordException) {
      return "invalid_record";
    }
    if (exception instanceof RetriableException) {
      return "retriable";
    }
    return "fatal";
  }

  private void count(ErrorHandlerContext context, String topic, String reason, Exception e) {
    Meters.counter(
            metrics,
            COUNTER,
            "Records the app could not write, by topic and reason.",
            "topic",
            topic,
            "reason",
            reason)
        .increment();
    LOGGER
        .atError()
        .setMessage("record not written")
        .addKeyValue("topic", topic)
        .addKeyValue("reason", reason)
        .addKeyValue("exception", e.getClass().getName())
        .addKeyValue("source", context.topic())
        .addKeyValue("partition", context.partition())
        .addKeyValue("offset", context.offset())
        .log();
  }
}
