package io.prefixlog.streams.errors;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class ProductionErrorsTest {
  @Test
  void shouldSkipRecordsThatCanNeverBeWrittenAndFailOnInfrastructureErrors() {
    // Given
    Exception[] errors = {
      new RecordTooLargeException("x"),
      new RecordBatchTooLargeException("x"),
      new InvalidRecordException("x"),
      new NotEnoughReplicasException("x"),
      new TopicAuthorizationException("x")
    };

    // When / Then
    assertThat(java.util.Arrays.stream(errors).map(ProductionErrors::reason))
        .containsExactly(
            "record_too_large", "record_too_large", "invalid_record", "retriable", "fatal");
  }
}
