package io.prefixlog.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka broker (KRaft, combined broker and controller) running in a child JVM from
 * the Kafka jars on the class path.
 *
 * <p>{@link #start(Options)} writes {@code server.properties} and a log4j2 config into the data
 * directory, formats the storage unless it already is (so a restart keeps the data), starts {@code
 * kafka.Kafka} through the {@link Watchdog} and returns once the broker answers {@code
 * describeCluster}. The broker dies with this JVM; {@link #close()} stops it cleanly.
 */
public final class KafkaBroker implements KafkaCluster, AutoCloseable {
  static final String FORMAT_MAIN = "kafka.tools.StorageTool";
  static final String BROKER_MAIN = "kafka.Kafka";

  private static final Logger LOGGER = LoggerFactory.getLogger(KafkaBroker.class);
  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
  private static final int LOG_TAIL_LINES = 30;

  private final Options options;
  private final int[] ports;
  private final String bootstrapServers;
  private final ChildProcess child;

  private KafkaBroker(Options options, int[] ports, String bootstrapServers, ChildProcess child) {
    this.options = options;
    this.ports = ports;
    this.bootstrapServers = bootstrapServers;
    this.child = child;
  }

  /**
   * Settings every single-node prefixlog broker gets, whatever starts it (replication factor 1 for
   * internal topics, exactly-once-capable transaction log, 33 MiB message limits (those of the
   * topics), no topic auto-creation, small thread counts). Other launchers, such as a container,
   * apply the same.
   */
  public static Map<String, String> singleNodeSettings() {
    return BrokerConfig.SINGLE_NODE_SETTINGS;
  }

  /**
   * Starts a broker and waits until it is ready.
   *
   * @throws StartupException if a fixed port is taken, formatting fails, the broker exits early or
   *     it is not ready by {@link Options#startTimeout()}
   * @throws java.io.UncheckedIOException if the data directory cannot be written
   */
  public static KafkaBroker start(Options options) {
    Objects.requireNonNull(options, "options");
    long startNanos = System.nanoTime();
    Path dataDir = options.dataDir();
    Path logFile = dataDir.resolve("broker.log");
    int[] ports = resolvePorts(options, logFile);
    Path serverProperties = dataDir.resolve("server.properties");
    Path log4j2Config = dataDir.resolve("log4j2.properties");
    try {
      Files.createDirectories(dataDir);
      Files.writeString(
          serverProperties,
          BrokerConfig.render(BrokerConfig.serverProperties(options, ports[0], ports[1])),
          StandardCharsets.UTF_8);
      Files.writeString(log4j2Config, BrokerConfig.log4j2Properties(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write broker configuration in " + dataDir, e);
    }
    List<String> jvmFlags =
        ChildProcess.smallJvmFlags(
            options.heapMiB(), "-Dlog4j2.configurationFile=" + log4j2Config.toUri());
    if (!isFormatted(dataDir)) {
      format(options, serverProperties, logFile, jvmFlags);
    }
    ChildProcess child =
        ChildProcess.builder(BROKER_MAIN)
            .args(List.of(serverProperties.toString()))
            .jvmFlags(jvmFlags)
            .logFile(logFile)
            .stopTimeout(STOP_TIMEOUT)
            .start();
    String bootstrapServers = options.host() + ":" + ports[0];
    child.awaitReady(() -> awaitReady(child, options, ports[0], bootstrapServers));
    LOGGER.info(
        "Kafka broker ready bootstrapServers={} pid={} dataDir={} startMillis={}",
        bootstrapServers,
        child.pid(),
        dataDir,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    return new KafkaBroker(options, ports, bootstrapServers, child);
  }

  /**
   * Stops this broker (if it still runs) and starts it again on the same data directory and ports,
   * as an operator's restart does: clients reconnect to the same address and find their data.
   */
  public KafkaBroker restart() {
    close();
    return start(options.withBrokerPort(ports[0]).withControllerPort(ports[1]));
  }

  @Override
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Holds server.properties, log4j2.properties, broker.log and Kafka's data. */
  public Path dataDir() {
    return options.dataDir();
  }

  /**
   * The bytes of {@code topic}'s log segments ({@code *.log}) over all its partitions in this
   * broker's data directory: what the topic holds on disk, for size figures.
   */
  public long topicLogBytes(String topic) throws IOException {
    Objects.requireNonNull(topic, "topic");
    long total = 0;
    try (Stream<Path> partitions = Files.list(BrokerConfig.logDirs(options.dataDir()))) {
      for (Path partition :
          partitions.filter(p -> p.getFileName().toString().startsWith(topic + "-")).toList()) {
        try (Stream<Path> files = Files.walk(partition)) {
          for (Path file :
              files
                  .filter(Files::isRegularFile)
                  .filter(f -> f.getFileName().toString().endsWith(".log"))
                  .toList()) {
            total += Files.size(file);
          }
        }
      }
    }
    return total;
  }

  /** The broker's stdout, stderr and WARN+ log. */
  public Path logFile() {
    return child.logFile();
  }

  public long pid() {
    return child.pid();
  }

  /** False once the broker process has exited, for whatever reason. */
  public boolean isAlive() {
    return child.isAlive();
  }

  /** Stops the broker: SIGTERM (a clean shutdown takes about 0.5 s), SIGKILL after 10 s. */
  @Override
  public void close() {
    child.close();
  }

  @Override
  public String toString() {
    return "KafkaBroker[bootstrapServers=" + bootstrapServers + ", pid=" + child.pid() + "]";
  }

  static boolean isFormatted(Path dataDir) {
    return Files.isRegularFile(BrokerConfig.logDirs(dataDir).resolve("meta.properties"));
  }

  private static int[] resolvePorts(Options options, Path logFile) {
    String host = options.host();
    int brokerPort = options.brokerPort();
    int controllerPort = options.controllerPort();
    requireFree(host, brokerPort, "broker", logFile);
    requireFree(host, controllerPort, "controller", logFile);
    int[] free = Ports.free(host, 2);
    if (brokerPort == 0) {
      brokerPort = free[0] != controllerPort ? free[0] : free[1];
    }
    if (controllerPort == 0) {
      controllerPort = free[1] != brokerPort ? free[1] : free[0];
    }
    return new int[] {brokerPort, controllerPort};
  }

  /** A fixed port that is taken fails here, before any child starts, with a clear message. */
  private static void requireFree(String host, int port, String purpose, Path logFile) {
    if (port == 0) {
      return;
    }
    Ports.bindFailure(host, port)
        .ifPresent(
            failure -> {
              throw new StartupException(
                  "Kafka "
                      + purpose
                      + " port "
                      + port
                      + " on "
                      + host
                      + " is already in use ("
                      + failure
                      + ")",
                  logFile);
            });
  }

  private static void format(
      Options options, Path serverProperties, Path logFile, List<String> jvmFlags) {
    // --cluster-id=ID, not "--cluster-id ID" or "-t ID": a base64url id may start with '-', which
    // argparse would take for an option. Uuid.randomUuid() avoids a leading '-' as well.
    String clusterId = Uuid.randomUuid().toString();
    long startNanos = System.nanoTime();
    try (ChildProcess formatter =
        ChildProcess.builder(FORMAT_MAIN)
            .args(List.of("format", "--cluster-id=" + clusterId, "-c", serverProperties.toString()))
            .jvmFlags(jvmFlags)
            .logFile(logFile)
            .start()) {
      OptionalInt status = formatter.waitFor(FORMAT_TIMEOUT);
      if (status.isEmpty() || status.getAsInt() != 0) {
        throw formatter.startupFailure(
            "Kafka storage format "
                + (status.isEmpty()
                    ? "did not finish within " + FORMAT_TIMEOUT
                    : "failed with exit status " + status.getAsInt())
                + " for data dir "
                + options.dataDir(),
            LOG_TAIL_LINES);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while formatting Kafka storage", logFile, e);
    }
    LOGGER.info(
        "Kafka storage formatted clusterId={} dataDir={} formatMillis={}",
        clusterId,
        options.dataDir(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
  }

  private static void awaitReady(
      ChildProcess child, Options options, int brokerPort, String bootstrapServers) {
    long deadline = System.nanoTime() + options.startTimeout().toNanos();
    Admin admin = null;
    try {
      while (true) {
        OptionalInt exit = child.exitStatus();
        if (exit.isPresent()) {
          throw child.startupFailure(
              "Kafka broker exited with status " + exit.getAsInt() + " before becoming ready",
              LOG_TAIL_LINES);
        }
        long remainingNanos = deadline - System.nanoTime();
        if (remainingNanos <= 0) {
          throw child.startupFailure(
              "Kafka broker at " + bootstrapServers + " not ready within " + options.startTimeout(),
              LOG_TAIL_LINES);
        }
        // Cheap TCP probe first, so the admin client does not log connection failures.
        if (admin == null && Ports.accepts(options.host(), brokerPort)) {
          admin = Admin.create(adminConfig(bootstrapServers));
        }
        if (admin != null && hasNodes(admin, remainingNanos)) {
          return;
        }
        Thread.sleep(POLL_INTERVAL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException(
          "interrupted while waiting for the Kafka broker", child.logFile(), e);
    } finally {
      if (admin != null) {
        admin.close(Duration.ofSeconds(1));
      }
    }
  }

  private static boolean hasNodes(Admin admin, long remainingNanos) throws InterruptedException {
    long waitMillis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(remainingNanos), 2000));
    try {
      Collection<Node> nodes =
          admin.describeCluster().nodes().get(waitMillis, TimeUnit.MILLISECONDS);
      return !nodes.isEmpty();
    } catch (ExecutionException | TimeoutException e) {
      // Not ready yet: the broker is still registering with its controller.
      return false;
    }
  }

  private static Map<String, Object> adminConfig(String bootstrapServers) {
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000,
        AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100,
        AdminClientConfig.CLIENT_ID_CONFIG, "prefixlog-embedded-readiness");
  }

  /**
   * How to start a broker. {@link #defaults(Path)}: host 127.0.0.1, free broker and controller
   * ports, 512 MiB heap, no extra properties, 60 s start timeout.
   *
   * @param dataDir holds configuration, log file and Kafka's data; reused data is not reformatted
   * @param host bind and advertised address (a hostname or IPv4 literal)
   * @param brokerPort client listener port; 0 picks a free one
   * @param controllerPort KRaft controller port; 0 picks a free one
   * @param heapMiB the child's maximum heap
   * @param brokerProperties extra server.properties entries; they override the built-in ones
   * @param startTimeout how long {@link #start(Options)} waits for readiness
   */
  public record Options(
      Path dataDir,
      String host,
      int brokerPort,
      int controllerPort,
      int heapMiB,
      Map<String, String> brokerProperties,
      Duration startTimeout) {
    private static final Pattern PROPERTY_KEY = Pattern.compile("[A-Za-z0-9._-]+");
    private static final int MIN_HEAP_MIB = 128;

    public Options {
      Objects.requireNonNull(dataDir, "dataDir");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(brokerProperties, "brokerProperties");
      Objects.requireNonNull(startTimeout, "startTimeout");
      dataDir = dataDir.toAbsolutePath().normalize();
      if (host.isBlank() || host.contains(":")) {
        throw new IllegalArgumentException(
            "host must be a hostname or IPv4 literal but was '" + host + "'");
      }
      requirePort("brokerPort", brokerPort);
      requirePort("controllerPort", controllerPort);
      if (brokerPort != 0 && brokerPort == controllerPort) {
        throw new IllegalArgumentException(
            "brokerPort and controllerPort must differ but both were " + brokerPort);
      }
      if (heapMiB < MIN_HEAP_MIB) {
        throw new IllegalArgumentException(
            "heapMiB must be at least " + MIN_HEAP_MIB + " but was " + heapMiB);
      }
      if (startTimeout.isNegative() || startTimeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive but was " + startTimeout);
      }
      brokerProperties.forEach(Options::requireProperty);
      brokerProperties = Collections.unmodifiableMap(new TreeMap<>(brokerProperties));
    }

    public static Options defaults(Path dataDir) {
      return new Options(dataDir, "127.0.0.1", 0, 0, 512, Map.of(), Duration.ofSeconds(60));
    }

    public Options withHost(String host) {
      return new Options(
          dataDir, host, brokerPort, controllerPort, heapMiB, brokerProperties, startTimeout);
    }

    public Options withBrokerPort(int brokerPort) {
      return new Options(
          dataDir, host, brokerPort, controllerPort, heapMiB, brokerProperties, startTimeout);
    }

    public Options withControllerPort(int controllerPort) {
      return new Options(
          dataDir, host, brokerPort, controllerPort, heapMiB, brokerProperties, startTimeout);
    }

    public Options withHeapMiB(int heapMiB) {
      return new Options(
          dataDir, host, brokerPort, controllerPort, heapMiB, brokerProperties, startTimeout);
    }

    /** Replaces the extra broker properties. */
    public Options withBrokerProperties(Map<String, String> brokerProperties) {
      return new Options(
          dataDir, host, brokerPort, controllerPort, heapMiB, brokerProperties, startTimeout);
    }

    /** Adds (or replaces) one extra broker property. */
    public Options withBrokerProperty(String key, String value) {
      Map<String, String> properties = new TreeMap<>(brokerProperties);
      properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return withBrokerProperties(properties);
    }

    public Options withStartTimeout(Duration startTimeout) {
      return new Options(
          dataDir, host, brokerPort, controllerPort, heapMiB, brokerProperties, startTimeout);
    }

    private static void requirePort(String name, int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException(
            name + " must be 0 (pick a free port) or 1-65535 but was " + port);
      }
    }

    private static void requireProperty(String key, String value) {
      Objects.requireNonNull(key, "broker property key");
      Objects.requireNonNull(value, "broker property " + key);
      if (!PROPERTY_KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "broker property key must match " + PROPERTY_KEY + " but was '" + key + "'");
      }
      if (value.contains("\n") || value.contains("\r")) {
        throw new IllegalArgumentException(
            "broker property " + key + " must be one line but was '" + value + "'");
      }
    }
  }
}
