package io.prefixlog.benchmarks.proxy;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A floor proxy ({@link NettyFloor} or {@link VertxFloor}) as the benchmark's child JVM, so that
 * its CPU time is its own: {@code FloorChild <netty|vertx> <upstream URL> <event loops> <port
 * file>}. Writes its port to the port file once it listens; SIGTERM closes it.
 */
public final class FloorChild {
  private FloorChild() {}

  public static void main(String[] args) throws Exception {
    URI upstream = URI.create(args[1]);
    int loops = Integer.parseInt(args[2]);
    AutoCloseable proxy;
    int port;
    switch (args[0]) {
      case "netty" -> {
        NettyFloor netty = NettyFloor.start(upstream, loops);
        proxy = netty;
        port = netty.port();
      }
      case "vertx" -> {
        VertxFloor vertx = VertxFloor.start(upstream, loops);
        proxy = vertx;
        port = vertx.port();
      }
      default -> throw new IllegalArgumentException("no floor proxy named " + args[0]);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    proxy.close();
                  } catch (Exception e) {
                    e.printStackTrace();
                  }
                  stopped.countDown();
                },
                "floor-child-shutdown"));
    PortFile.write(Path.of(args[3]), Integer.toString(port));
    stopped.await();
  }
}
