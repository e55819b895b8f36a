package io.prefixlog.tools.up;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import java.io.IOException;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The stream app of {@code up}, started after the broker: it creates the topics the archive, the KV
 * subscriber and the proxy publish to or read, so {@link #start} returns only once it is {@code
 * RUNNING}.
 */
final class StreamAppPart implements Part {
  /** How long the stream app may take to reach {@code RUNNING}. */
  private static final Duration RUNNING_TIMEOUT = Duration.ofSeconds(90);

  /**
   * A read-only view of the stream app's counters, for the demo's progress checks: it reads the
   * counters without holding the app.
   */
  @FunctionalInterface
  interface Counters {
    /** The sum of the counters named {@code name} with these tags (key, value, ...). */
    long count(String name, String... tags);
  }

  private final StreamApp app;
  private final int metricsPort;
  private final Counters counters;

  private StreamAppPart(StreamApp app) {
    this.app = app;
    this.metricsPort = app.metricsPort();
    this.counters = (name, tags) -> Meters.count(app.metrics().registry(), name, tags);
  }

  /**
   * Starts the app and waits until it is {@code RUNNING}; when it does not get there, closes it and
   * throws.
   */
  static StreamAppPart start(StreamAppConfig config) throws IOException, InterruptedException {
    StreamApp app = new StreamApp(config);
    try {
      app.start();
      awaitRunning(app);
    } catch (IOException | InterruptedException | RuntimeException e) {
      try {
        app.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return new StreamAppPart(app);
  }

  /** The port of its {@code /metrics} and {@code /health}. */
  int metricsPort() {
    return metricsPort;
  }

  Counters counters() {
    return counters;
  }

  /** Commits, closes the streams threads (up to 30 s) and the metrics endpoint. Idempotent. */
  @Override
  public void close() {
    app.close();
  }

  private static void awaitRunning(StreamApp app) throws InterruptedException {
    long deadline = System.nanoTime() + RUNNING_TIMEOUT.toNanos();
    while (app.state() != KafkaStreams.State.RUNNING) {
      if (app.state() == KafkaStreams.State.ERROR || System.nanoTime() > deadline) {
        throw new IllegalStateException("the stream app did not reach RUNNING: " + app.state());
      }
      Thread.sleep(100);
    }
  }
}
