package io.prefixlog.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TCP port helpers: pick free ports, check a fixed one, probe whether one accepts. Public for the
 * children other modules start ({@link #free}).
 */
public final class Ports {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Above the fixed ports prefixlog and its parts listen on (8000, 9092, 5432, 9090, ...). */
  private static final int LOWEST_PICKED = 15_000;

  private Ports() {}

  /** A port that was free on {@code host} a moment ago, for a child to bind a second later. */
  public static int free(String host) {
    return free(host, 1)[0];
  }

  /**
   * {@code count} distinct ports that were free on {@code host} a moment ago, for children to bind
   * a second later. They are held open together, so they differ, and drawn from below the kernel's
   * ephemeral range: a port that {@code bind(0)} hands out comes from the range every outgoing
   * connection takes its local port from, so the test's own Kafka clients could take it before the
   * child binds it (a demo engine once failed so with ZMQ's EADDRINUSE).
   */
  public static int[] free(String host, int count) {
    List<ServerSocket> held = new ArrayList<>(count);
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        held.add(bindUnclaimed(host));
        ports[i] = held.get(i).getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free ports on " + host, e);
    } finally {
      for (ServerSocket socket : held) {
        closeQuietly(socket);
      }
    }
  }

  private static ServerSocket bindUnclaimed(String host) throws IOException {
    int end = ephemeralRangeStart();
    if (end - LOWEST_PICKED < 1_000) {
      return bind(host, 0); // no room below the ephemeral range: let the kernel choose
    }
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST_PICKED, end);
      try {
        return bind(host, port);
      } catch (BindException taken) {
        // someone listens there; draw again
      }
    }
    return bind(host, 0);
  }

  /** Linux says; elsewhere the IANA dynamic range (macOS and Windows use it). */
  private static int ephemeralRangeStart() {
    try {
      // readAllLines, not readString: /proc files report size 0 and readString returns 1 byte
      String range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 49_152;
    }
  }

  private static void closeQuietly(ServerSocket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing was accepted on it; closing cannot lose anything
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
