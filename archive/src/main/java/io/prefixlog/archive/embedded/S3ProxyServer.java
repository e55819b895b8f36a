package io.prefixlog.archive.embedded;

import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.StartupException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An S3-compatible server: s3proxy's jar-with-dependencies in a child JVM with its file-system
 * backend, so each object is a plain file under {@code <dataDir>/data/<bucket>/<key>}. The bucket
 * is a directory created before the start (no CreateBucket call). Loopback only, v2/v4 signatures
 * with one access key.
 */
public final class S3ProxyServer implements AutoCloseable {
  static final String MAIN = "org.gaul.s3proxy.Main";

  private static final Logger LOGGER = LoggerFactory.getLogger(S3ProxyServer.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final int LOG_TAIL_LINES = 30;

  private final Options options;
  private final String endpoint;
  private final ChildProcess child;

  private S3ProxyServer(Options options, String endpoint, ChildProcess child) {
    this.options = options;
    this.endpoint = endpoint;
    this.child = child;
  }

  /**
   * Starts s3proxy and waits until it answers HTTP.
   *
   * @throws StartupException if the jar is missing, the child exits or does not answer in time
   */
  public static S3ProxyServer start(Options options) {
    Objects.requireNonNull(options, "options");
    long started = System.nanoTime();
    Path dir = options.dataDir();
    Path logFile = dir.resolve("s3proxy.log");
    if (!Files.isRegularFile(options.jar())) {
      throw new StartupException(
          "s3proxy jar "
              + options.jar()
              + " not found; build it with: mvn -pl archive -am package -Pquick",
          logFile);
    }
    int port = options.port() == 0 ? Ports.free(options.host()) : options.port();
    String endpoint = "http://" + options.host() + ":" + port;
    Path config = dir.resolve("s3proxy.conf");
    Path logback = dir.resolve("logback.xml");
    try {
      Files.createDirectories(dir.resolve("data").resolve(options.bucket()));
      Files.writeString(config, properties(options, endpoint, dir), StandardCharsets.UTF_8);
      Files.writeString(logback, LOGBACK, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write s3proxy's configuration in " + dir, e);
    }
    ChildProcess child =
        ChildProcess.builder(MAIN)
            .classpath(ChildClasspath.of(List.of(options.jar())))
            .jvmFlags(
                ChildProcess.smallJvmFlags(
                    options.heapMiB(), "-Dlogback.configurationFile=" + logback))
            .args(List.of("--properties", config.toString()))
            .logFile(logFile)
            .stopTimeout(Duration.ofSeconds(5))
            .start();
    child.awaitReady(() -> awaitHttp(child, endpoint, options.startTimeout()));
    LOGGER.info(
        "s3proxy ready endpoint={} bucket={} pid={} startMillis={}",
        endpoint,
        options.bucket(),
        child.pid(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    return new S3ProxyServer(options, endpoint, child);
  }

  /** {@code http://host:port}. */
  public String endpoint() {
    return endpoint;
  }

  public String bucket() {
    return options.bucket();
  }

  /** The directory of the bucket's objects: one file per key. */
  public Path bucketDir() {
    return options.dataDir().resolve("data").resolve(options.bucket());
  }

  public Path logFile() {
    return child.logFile();
  }

  public boolean isAlive() {
    return child.isAlive();
  }

  @Override
  public void close() {
    child.close();
  }

  @Override
  public String toString() {
    return "S3ProxyServer[endpoint=" + endpoint + ", pid=" + child.pid() + "]";
  }

  static String properties(Options options, String endpoint, Path dir) {
    return String.join(
        "\n",
        "# Written by prefixlog S3ProxyServer.",
        "s3proxy.endpoint=" + endpoint,
        "s3proxy.authorization=aws-v2-or-v4",
        "s3proxy.identity=" + options.accessKey(),
        "s3proxy.credential=" + options.secretKey(),
        "jclouds.provider=filesystem",
        "jclouds.identity=" + options.accessKey(),
        "jclouds.credential=" + options.secretKey(),
        "jclouds.filesystem.basedir=" + dir.resolve("data"),
        "");
  }

  // Without a configuration s3proxy logs every request at DEBUG.
  private static final String LOGBACK =
      String.join(
          "\n",
          "<configuration>",
          "  <appender name=\"out\" class=\"ch.qos.logback.core.ConsoleAppender\">",
          "    <encoder><pattern>%d{ISO8601} %-5level [%thread] %logger: %msg%n</pattern></encoder>",
          "  </appender>",
          "  <root level=\"WARN\"><appender-ref ref=\"out\"/></root>",
          "</configuration>",
          "");

  /** Any HTTP answer (s3proxy says 403 to an unsigned request) means it is serving. */
  private static void awaitHttp(ChildProcess child, String endpoint, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(endpoint + "/")).timeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      OptionalInt exit = child.exitStatus();
      if (exit.isPresent()) {
        throw child.startupFailure(
            "s3proxy exited with status " + exit.getAsInt() + " before serving", LOG_TAIL_LINES);
      }
      try {
        http.send(request, HttpResponse.BodyHandlers.discarding());
        return;
      } catch (IOException e) {
        // Not listening yet.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StartupException("interrupted while waiting for s3proxy", child.logFile(), e);
      }
      if (System.nanoTime() > deadline) {
        throw child.startupFailure(
            "s3proxy at " + endpoint + " not serving within " + timeout, LOG_TAIL_LINES);
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StartupException("interrupted while waiting for s3proxy", child.logFile(), e);
      }
    }
  }

  /**
   * How to start s3proxy.
   *
   * @param dataDir holds the configuration, the log and the objects ({@code data/<bucket>/…})
   * @param jar s3proxy's jar-with-dependencies ({@code archive/target/s3proxy/s3proxy.jar})
   * @param port 0 picks a free one
   */
  public record Options(
      Path dataDir,
      Path jar,
      String host,
      int port,
      String bucket,
      String accessKey,
      String secretKey,
      int heapMiB,
      Duration startTimeout) {
    public Options {
      Objects.requireNonNull(dataDir, "dataDir");
      Objects.requireNonNull(jar, "jar");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(bucket, "bucket");
      Objects.requireNonNull(accessKey, "accessKey");
      Objects.requireNonNull(secretKey, "secretKey");
      Objects.requireNonNull(startTimeout, "startTimeout");
      dataDir = dataDir.toAbsolutePath().normalize();
      jar = jar.toAbsolutePath().normalize();
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0-65535 but was " + port);
      }
      if (!bucket.matches("[a-z0-9][a-z0-9.-]{2,62}")) {
        throw new IllegalArgumentException(
            "bucket must be 3-63 lower-case letters, digits, dots or dashes but was '"
                + bucket
                + "'");
      }
      if (heapMiB < 64) {
        throw new IllegalArgumentException("heapMiB must be at least 64 but was " + heapMiB);
      }
    }

    /** Loopback, a free port, 128 MiB heap, 30 s start timeout. */
    public static Options defaults(
        Path dataDir, Path jar, String bucket, String accessKey, String secretKey) {
      return new Options(
          dataDir, jar, "127.0.0.1", 0, bucket, accessKey, secretKey, 128, Duration.ofSeconds(30));
    }

    public Options withPort(int port) {
      return new Options(
          dataDir, jar, host, port, bucket, accessKey, secretKey, heapMiB, startTimeout);
    }
  }
}
