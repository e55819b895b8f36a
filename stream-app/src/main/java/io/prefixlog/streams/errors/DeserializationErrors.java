package io.prefixlog.streams.errors;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * Kafka Streams' {@code deserialization.exception.handler}: an input the source's deserializer
 * cannot read becomes a dead letter with reason {@code deserialization_error} and is skipped.
 * Failing would loop on it, as every replacement thread reads it again. (The app's sources read
 * strings and bytes and parse the values themselves, so this is a guard, not a path in use.)
 */
public final class DeserializationErrors implements DeserializationExceptionHandler {
  static final String REASON = "deserialization_error";

  private InputDeadLetters deadLetters;

  @Override
  public void configure(Map<String, ?> configs) {
    this.deadLetters = new InputDeadLetters(configs);
  }

  @Override
  public Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception e) {
    String detail = e.getClass().getName() + " reading " + context.topic();
    return Response.resume(List.of(deadLetters.of(context, record.timestamp(), REASON, detail)));
  }
}
