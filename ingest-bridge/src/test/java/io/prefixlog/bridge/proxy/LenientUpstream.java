package io.prefixlog.bridge.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An HTTP/1.1 server on raw sockets that parses requests the way a naive engine front end might —
 * Content-Length wins over Transfer-Encoding, bare LF ends a line — keeps connections alive, and
 * records every request it parses. Behind the proxy, a request smuggled past it shows up here as a
 * request nobody sent.
 */
final class LenientUpstream implements AutoCloseable {
  /** One parsed request. */
  record Parsed(String method, String path, byte[] body, int connection) {
    String bodyText() {
      return new String(body, StandardCharsets.ISO_8859_1);
    }
  }

  private final ServerSocket server;
  private final List<Parsed> parsed = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  LenientUpstream() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptLoop, "lenient-upstream");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  List<Parsed> parsed() {
    return List.copyOf(parsed);
  }

  private void acceptLoop() {
    int connections = 0;
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        sockets.add(socket);
        int id = ++connections;
        Thread t = new Thread(() -> serve(socket, id), "lenient-upstream-" + id);
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket socket, int connection) {
    try (socket;
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream()) {
      while (true) {
        String requestLine = line(in);
        if (requestLine == null) {
          return;
        }
        if (requestLine.isEmpty()) {
          continue;
        }
        long contentLength = -1;
        boolean chunked = false;
        String header;
        while ((header = line(in)) != null && !header.isEmpty()) {
          int colon = header.indexOf(':');
          if (colon < 0) {
            continue;
          }
          String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
          String value = header.substring(colon + 1).trim();
          if (name.equals("content-length")) {
            try {
              contentLength = Long.parseLong(value);
            } catch (NumberFormatException e) {
              contentLength = 0;
            }
          } else if (name.equals("transfer-encoding")) {
            chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
          }
        }
        byte[] body;
        if (contentLength >= 0) {
          body = in.readNBytes((int) contentLength); // naive: the length wins
        } else if (chunked) {
          body = chunks(in);
        } else {
          body = new byte[0];
        }
        String[] parts = requestLine.split(" ");
        parsed.add(new Parsed(parts[0], parts.length > 1 ? parts[1] : "", body, connection));
        byte[] reply = "ok".getBytes(StandardCharsets.US_ASCII);
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                    + reply.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(reply);
        out.flush();
      }
    } catch (SocketException e) {
      // the proxy closed the pooled connection
    } catch (IOException e) {
      // ends the connection
    }
  }

  private static byte[] chunks(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String size = line(in);
      if (size == null) {
        return body.toByteArray();
      }
      int semicolon = size.indexOf(';');
      int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      if (n == 0) {
        String trailer;
        while ((trailer = line(in)) != null && !trailer.isEmpty()) {
          // trailers ignored
        }
        return body.toByteArray();
      }
      body.write(in.readNBytes(n));
      line(in);
    }
  }

  /** A line without its LF (and CR); null at the end of the stream. */
  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int n =
            bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }
}
