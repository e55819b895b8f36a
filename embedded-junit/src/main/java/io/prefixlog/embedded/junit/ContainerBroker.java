package io.prefixlog.embedded.junit;

import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.KafkaCluster;
import java.util.Locale;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * A broker in a Docker container, configured like {@link KafkaBroker}. The only class that names
 * Testcontainers types: it is loaded only after {@link BrokerBackend} has found them.
 */
final class ContainerBroker implements KafkaCluster, AutoCloseable {
  static final String IMAGE = "apache/kafka:4.3.1";

  private final KafkaContainer container;

  private ContainerBroker(KafkaContainer container) {
    this.container = container;
  }

  static boolean dockerAvailable() {
    return DockerClientFactory.instance().isDockerAvailable();
  }

  static ContainerBroker start() {
    KafkaContainer container = new KafkaContainer(IMAGE);
    KafkaBroker.singleNodeSettings()
        .forEach((key, value) -> container.withEnv(envName(key), value));
    container.start();
    return new ContainerBroker(container);
  }

  /** The apache/kafka image maps KAFKA_X_Y to x.y ('_' in a name doubles, '-' triples). */
  static String envName(String property) {
    return "KAFKA_"
        + property
            .replace("_", "__")
            .replace("-", "___")
            .replace(".", "_")
            .toUpperCase(Locale.ROOT);
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public void close() {
    container.stop();
  }

  @Override
  public String toString() {
    return "ContainerBroker[image=" + IMAGE + ", bootstrapServers=" + bootstrapServers() + "]";
  }
}
