package io.prefixlog.embedded;

import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;

/** A running Kafka cluster as clients see it, whatever started it. */
public interface KafkaCluster {
  /** The {@code bootstrap.servers} value, e.g. {@code 127.0.0.1:40123}. */
  String bootstrapServers();

  /** A client configuration holding only {@code bootstrap.servers}; copy it to add settings. */
  default Map<String, Object> clientConfig() {
    return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
  }
}
