package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.streams.StreamAppMetrics;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

class ClockSkewBoundTest {
  private static final long NOW = 1_800_000_000_000L;
  private static final long SKEW = Duration.ofMinutes(5).toMillis();

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ClockSkewBound bound =
      new ClockSkewBound(
          Duration.ofMinutes(5), () -> NOW, new StreamAppMetrics(registry), "sessionKey");

  @Test
  void shouldKeepATimestampUpToTheBoundAndHoldALaterOneToIt() {
    // Given
    long[] timestamps = {0, NOW - Duration.ofDays(3).toMillis(), NOW, NOW + SKEW, NOW + SKEW + 1};

    // When
    long[] extracted = new long[timestamps.length];
    for (int i = 0; i < timestamps.length; i++) {
      extracted[i] = bound.extract(record("t", "k" + i, timestamps[i]), -1);
    }
    long eightDays = bound.extract(record("u", "k", NOW + Duration.ofDays(8).toMillis()), -1);

    // Then
    assertThat(extracted)
        .containsExactly(0, NOW - Duration.ofDays(3).toMillis(), NOW, NOW + SKEW, NOW + SKEW);
    assertThat(eightDays).isEqualTo(NOW + SKEW);
    assertThat(Meters.count(registry, "prefixlog_record_time_clamped_total", "topic", "t"))
        .isEqualTo(1);
    assertThat(Meters.count(registry, "prefixlog_record_time_clamped_total", "topic", "u"))
        .isEqualTo(1);
  }

  @Test
  void shouldFailOnANegativeTimestampAsKafkaStreamsDefaultDoes() {
    // When / Then
    assertThatThrownBy(() -> bound.extract(record("t", "k", -1), -1))
        .isInstanceOf(StreamsException.class);
  }

  private static ConsumerRecord<Object, Object> record(String topic, String key, long timestamp) {
    return new ConsumerRecord<>(
        topic,
        0,
        7,
        timestamp,
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        new byte[0],
        new RecordHeaders(),
        Optional.empty());
  }
}
