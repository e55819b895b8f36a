package io.prefixlog.embedded.junit;

import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves {@link KafkaCluster} parameters to one broker per test JVM.
 *
 * <p>The broker starts lazily on first use and lives in the root {@link ExtensionContext.Store},
 * which closes it when the test run ends (the child process also dies with the JVM). Every test
 * class in the JVM shares it, so each must use its own topic names, group ids and application ids.
 *
 * <pre>{@code
 * @ExtendWith(KafkaExtension.class)
 * class SessionDeltasIT {
 *   @Test
 *   void shouldDoX(KafkaCluster kafka) { ... kafka.bootstrapServers() ... }
 * }
 * }</pre>
 *
 * <p>{@code PREFIXLOG_TEST_BROKER} (system property or environment variable) picks the broker:
 * {@code process} ({@link KafkaBroker}, a child JVM), {@code testcontainers} (the {@code
 * apache/kafka} image; Testcontainers must be on the test class path) or {@code auto} (the default:
 * Testcontainers when it is on the class path and its engine already holds the real image, else the
 * process).
 */
public final class KafkaExtension implements ParameterResolver {
  private static final Logger LOGGER = LoggerFactory.getLogger(KafkaExtension.class);
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KafkaExtension.class);
  private static final String CLUSTER_KEY = "kafka-cluster";

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == KafkaCluster.class;
  }

  @Override
  public KafkaCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(CLUSTER_KEY, key -> startCluster(), SharedCluster.class)
        .cluster();
  }

  private static SharedCluster startCluster() {
    BrokerBackend backend =
        BrokerBackend.choose(
            BrokerBackend.configuredSetting(),
            BrokerBackend::testcontainersDockerAvailable,
            BrokerBackend::verifiedImagePresent);
    LOGGER.info("Starting the test JVM's Kafka broker backend={}", backend);
    switch (backend) {
      case TESTCONTAINERS:
        ContainerBroker container = ContainerBroker.start();
        return new SharedCluster(container, container::close);
      case PROCESS:
        KafkaBroker broker = KafkaBroker.start(KafkaBroker.Options.defaults(newDataDir()));
        return new SharedCluster(broker, broker::close);
      default:
        throw new IllegalStateException("unknown backend " + backend);
    }
  }

  /**
   * Under {@code target/} when the JVM runs in a Maven module (kept after the run, so the broker
   * log can be read after a failure; {@code mvn clean} removes it), else in the temp directory.
   */
  private static Path newDataDir() {
    Path target = Path.of("target");
    try {
      Path parent =
          Files.isDirectory(target)
              ? Files.createDirectories(target.resolve("prefixlog-kafka"))
              : Path.of(System.getProperty("java.io.tmpdir"));
      return Files.createTempDirectory(parent, "broker-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a data directory for the test broker", e);
    }
  }

  /** The store closes {@link AutoCloseable} values when the root context closes. */
  private record SharedCluster(KafkaCluster cluster, Runnable stop) implements AutoCloseable {
    @Override
    public void close() {
      LOGGER.info("Stopping the test JVM's Kafka broker cluster={}", cluster);
      stop.run();
    }
  }
}
