package io.prefixlog.benchmarks.proxy;

import io.prefixlog.embedded.ChildProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How a proxy child JVM tells the benchmark its ports: it writes them to a file once it serves
 * (written aside and moved, so the benchmark never reads half of it), and the benchmark waits for
 * the file while the child lives.
 */
final class PortFile {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private PortFile() {}

  /** In the child: publishes {@code ports} once it serves. */
  static void write(Path file, String ports) throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(partial, ports, StandardCharsets.US_ASCII);
    Files.move(partial, file);
  }

  /**
   * In the benchmark: the ports {@code child} wrote, space-separated; closes the child and fails
   * with its log's tail when it dies or does not serve within 60 s.
   */
  static String[] await(ChildProcess child, Path file, String what)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.exists(file)) {
      if (!child.isAlive() || System.nanoTime() > deadline) {
        String log = child.logTail(40);
        child.close();
        throw new IOException(what + " did not start:\n" + log);
      }
      Thread.sleep(50);
    }
    return Files.readString(file, StandardCharsets.US_ASCII).trim().split(" ");
  }
}
