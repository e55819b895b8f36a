package io.prefixlog.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Optional;

/**
 * TCP port helpers: pick free ports, check a fixed one, probe whether one accepts. Public for the
 * children other modules start ({@link #free}).
 */
public final class Ports {
  private Ports() {}

  /** A port that was free on {@code host} a moment ago, for a child to bind a second later. */
  public static int free(String host) {
    try (ServerSocket socket = bind(host, 0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on " + host, e);
    }
  }

  /**
   * Two distinct ports that were free a moment ago. Both sockets are held open together so they
   * differ; the child binds them a second later (the race never bit in measured runs).
   */
  static int[] freePair(String host) {
    try (ServerSocket first = bind(host, 0);
        ServerSocket second = bind(host, 0)) {
      return new int[] {first.getLocalPort(), second.getLocalPort()};
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free ports on " + host, e);
    }
  }

  /** Whether host:port can be bound right now; the message of the bind failure otherwise. */
  static Optional<String> bindFailure(String host, int port) {
    try {
      bind(host, port).close();
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }

  /** Whether something accepts TCP connections on host:port. */
  static boolean accepts(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static ServerSocket bind(String host, int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.bind(new InetSocketAddress(host, port));
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }
}
