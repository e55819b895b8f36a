package io.prefixlog.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaPassThroughTest {

  @ParameterizedTest
  @CsvSource({
    "PREFIXLOG_KAFKA_PROCESSING_GUARANTEE, at_least_once",
    "PREFIXLOG_KAFKA_ENABLE_IDEMPOTENCE, false",
    "PREFIXLOG_KAFKA_PRODUCER_ENABLE_IDEMPOTENCE, false",
    "PREFIXLOG_KAFKA_ACKS, 1",
    "PREFIXLOG_KAFKA_PRODUCER_ACKS, 0",
    "PREFIXLOG_KAFKA_ISOLATION_LEVEL, read_uncommitted",
  })
  void shouldRefuseAPassThroughThatWeakensADeliveryGuarantee(String variable, String value) {
    // Given
    Settings settings = Settings.of(Map.of(variable, value));

    // When / Then
    assertThatThrownBy(() -> KafkaPassThrough.read(settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(variable + "=" + value + ": weakens a delivery guarantee")
        .hasMessageContaining(KafkaPassThrough.ALLOW);
  }

  @Test
  void shouldPassTuningAndSecuritySettingsAndAnExplicitlyAllowedWeakening() {
    // Given
    Settings settings =
        Settings.of(
            Map.of(
                "PREFIXLOG_KAFKA_SECURITY_PROTOCOL",
                "SSL",
                "PREFIXLOG_KAFKA_ACKS",
                "all",
                "PREFIXLOG_KAFKA_PROCESSING_GUARANTEE",
                "at_least_once",
                KafkaPassThrough.ALLOW,
                "true"));

    // When
    Map<String, String> kafka = KafkaPassThrough.read(settings);

    // Then
    assertThat(kafka)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "security.protocol", "SSL",
                "acks", "all",
                "processing.guarantee", "at_least_once"));
  }
}
