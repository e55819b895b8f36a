package io.prefixlog.tools.up;

import io.prefixlog.embedded.KafkaBroker;
import java.nio.file.Path;

/**
 * The broker of {@code up}: a single-node Kafka broker (KRaft) in a child JVM that dies with this
 * one. Started first and stopped last, since every other part talks to it.
 */
final class BrokerPart implements Part {
  private final KafkaBroker broker;
  private final String bootstrapServers;
  private final Path dataDir;
  private boolean closed;

  private BrokerPart(KafkaBroker broker) {
    this.broker = broker;
    this.bootstrapServers = broker.bootstrapServers();
    this.dataDir = broker.dataDir();
  }

  /**
   * Starts the broker with its data under {@code dataDir}, on {@code port} of 127.0.0.1 (0: any
   * free port); returns once it answers.
   *
   * @throws io.prefixlog.embedded.StartupException when it does not
   */
  static BrokerPart start(Path dataDir, int port) {
    return new BrokerPart(
        KafkaBroker.start(KafkaBroker.Options.defaults(dataDir).withBrokerPort(port)));
  }

  /** Where the other parts connect, {@code 127.0.0.1:port}. */
  String bootstrapServers() {
    return bootstrapServers;
  }

  /** The broker's directory: its {@code data/} (the log segments) and {@code broker.log}. */
  Path dataDir() {
    return dataDir;
  }

  /** SIGTERM, then SIGKILL when the broker has not stopped after 10 s. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    broker.close();
  }
}
