package io.prefixlog.benchmarks.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's nginx as the reference reverse proxy, configured as the performance anchors' "T (tuned)"
 * setup and run in the foreground as a child process with every path inside a temporary directory
 * (no root needed):
 *
 * <ul>
 *   <li>{@code client_body_buffer_size 256k}: a 20 KB body stays in memory (the stock 16 KB spills
 *       it to a temp file, and with upstream keepalive that causes 40 ms delayed-ACK stalls);
 *   <li>{@code upstream { keepalive 32; }}, {@code proxy_http_version 1.1}, {@code proxy_set_header
 *       Connection ""}: upstream connections are reused;
 *   <li>{@code proxy_request_buffering on} (nginx's default, as in the anchors): the whole body is
 *       read before the upstream request starts; {@code proxy_buffering off}: the response is
 *       passed on as it arrives, as a proxy for SSE streams must (prefixlog never buffers either);
 *   <li>one worker, {@code access_log off}, {@code tcp_nodelay on}.
 * </ul>
 */
final class Nginx implements AutoCloseable {
  private final Process process;
  private final int port;

  private Nginx(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static Nginx start(Path dir, int port, int upstreamPort)
      throws IOException, InterruptedException {
    Files.createDirectories(dir.resolve("logs"));
    Files.createDirectories(dir.resolve("temp"));
    Path conf =
        Files.writeString(
            dir.resolve("nginx.conf"),
            """
            worker_processes 1;
            daemon off;
            pid %1$s/nginx.pid;
            error_log %1$s/logs/error.log warn;
            events { worker_connections 1024; }
            http {
              access_log off;
              client_body_temp_path %1$s/temp/body;
              proxy_temp_path %1$s/temp/proxy;
              fastcgi_temp_path %1$s/temp/fastcgi;
              uwsgi_temp_path %1$s/temp/uwsgi;
              scgi_temp_path %1$s/temp/scgi;
              tcp_nodelay on;
              keepalive_requests 1000000;
              upstream engine {
                server 127.0.0.1:%3$d;
                keepalive 32;
              }
              server {
                listen 127.0.0.1:%2$d;
                client_max_body_size 16m;
                client_body_buffer_size 256k;
                location / {
                  proxy_pass http://engine;
                  proxy_http_version 1.1;
                  proxy_set_header Connection "";
                  proxy_request_buffering on;
                  proxy_buffering off;
                }
              }
            }
            """
                .formatted(dir.toAbsolutePath(), port, upstreamPort),
            StandardCharsets.US_ASCII);
    Process process =
        new ProcessBuilder(List.of("nginx", "-p", dir.toString(), "-c", conf.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("logs/stdout.log").toFile())
            .start();
    Nginx nginx = new Nginx(process, port);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!accepts(port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        nginx.close();
        throw new IOException(
            "nginx did not start: "
                + Files.readString(dir.resolve("logs/stdout.log"))
                + Files.readString(dir.resolve("logs/error.log")));
      }
      Thread.sleep(50);
    }
    return nginx;
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  int port() {
    return port;
  }

  /** CPU of the master and its worker. */
  long cpuNanos() {
    return ProcCpu.treeNanos(process.toHandle());
  }

  /** Nanoseconds the worker spent runnable but waiting for a CPU, or -1. */
  long workerWaitNanos() {
    long total = -1;
    for (ProcessHandle worker : process.toHandle().descendants().toList()) {
      for (long wait : ProcCpu.threadGroupWaitNanos(worker.pid()).values()) {
        total = Math.max(total, 0) + wait;
      }
    }
    return total;
  }

  @Override
  public void close() {
    List<ProcessHandle> workers = process.toHandle().descendants().toList();
    process.destroy(); // SIGTERM: nginx's fast shutdown, the worker exits with the master
    try {
      if (process.waitFor(10, TimeUnit.SECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    workers.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
