package io.prefixlog.tools.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {
  @Test
  void shouldPassTheKafkaVariablesThroughAsClientSettings() {
    // Given: the README's SASL client side, and a variable that is not a Kafka one
    Map<String, String> env =
        Map.of(
            "PREFIXLOG_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
            "PREFIXLOG_KAFKA_SASL_MECHANISM", "PLAIN",
            "PREFIXLOG_KAFKA_SSL_TRUSTSTORE_LOCATION", "/etc/kafka/broker.pem",
            "PREFIXLOG_UI_TOKEN", "not-a-kafka-setting");

    // When
    Properties p = KafkaClients.properties("kafka.example.net:9095", env);

    // Then
    assertThat(p)
        .containsOnly(
            Map.entry("bootstrap.servers", "kafka.example.net:9095"),
            Map.entry("security.protocol", "SASL_SSL"),
            Map.entry("sasl.mechanism", "PLAIN"),
            Map.entry("ssl.truststore.location", "/etc/kafka/broker.pem"));
  }

  @Test
  void shouldKeepTheCommandsBootstrapOverAPassedThroughOne() {
    Properties p =
        KafkaClients.properties(
            "127.0.0.1:9094", Map.of("PREFIXLOG_KAFKA_BOOTSTRAP_SERVERS", "elsewhere:9092"));

    assertThat(p).containsEntry("bootstrap.servers", "127.0.0.1:9094");
  }

  @Test
  void shouldRefuseAPassThroughThatWeakensAGuaranteeAsTheServicesDo() {
    assertThatThrownBy(
            () ->
                KafkaClients.properties(
                    "127.0.0.1:9094",
                    Map.of("PREFIXLOG_KAFKA_ISOLATION_LEVEL", "read_uncommitted")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_KAFKA_ISOLATION_LEVEL=read_uncommitted")
        .hasMessageContaining("PREFIXLOG_ALLOW_WEAKER_DELIVERY");
  }
}
