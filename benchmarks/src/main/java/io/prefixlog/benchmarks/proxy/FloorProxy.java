package io.prefixlog.benchmarks.proxy;

import io.prefixlog.embedded.ChildProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A floor proxy in a child JVM ({@link FloorChild}) with the prefixlog proxy's JVM flags and as
 * many event loops as it has: targets {@code netty-floor} and {@code vertx-floor}, the CPU per
 * request of a JVM proxy without capture, next to nginx and prefixlog in the same rounds.
 */
final class FloorProxy implements AutoCloseable {
  private final ChildProcess child;
  private final int port;
  private final String loopGroup;

  private FloorProxy(ChildProcess child, int port, String loopGroup) {
    this.child = child;
    this.port = port;
    this.loopGroup = loopGroup;
  }

  /** {@code kind}: netty or vertx. */
  static FloorProxy start(Path dir, String kind, String upstream)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path portFile = dir.resolve("port");
    int loops = Math.max(1, Runtime.getRuntime().availableProcessors());
    ChildProcess child =
        ChildProcess.builder(FloorChild.class.getName())
            .jvmFlags(PrefixlogProxy.jvmFlags())
            .args(List.of(kind, upstream, Integer.toString(loops), portFile.toString()))
            .logFile(dir.resolve("floor.log"))
            .stopTimeout(Duration.ofSeconds(30))
            .start();
    int port = Integer.parseInt(PortFile.await(child, portFile, "the " + kind + " floor proxy")[0]);
    // ProcCpu's group names: Netty's "floor-loop-1-1" is "floor-loop-" (digits dropped).
    return new FloorProxy(child, port, kind.equals("netty") ? "floor-loop-" : "vert.x-eventloo");
  }

  int port() {
    return port;
  }

  long cpuNanos() {
    return ProcCpu.nanos(child.pid());
  }

  Map<String, Long> threadGroupNanos() {
    return ProcCpu.threadGroupNanos(child.pid());
  }

  /** Nanoseconds the floor's event loops spent runnable but waiting for a CPU, or -1. */
  long loopWaitNanos() {
    return ProcCpu.threadGroupWaitNanos(child.pid()).getOrDefault(loopGroup, -1L);
  }

  @Override
  public void close() {
    child.close();
  }
}
