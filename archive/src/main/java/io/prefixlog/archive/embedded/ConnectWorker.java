package io.prefixlog.archive.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.prefixlog.archive.ConnectTemplates;
import io.prefixlog.embedded.ChildLog4j2;
import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.StartupException;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Connect worker in standalone mode ({@code ConnectStandalone}, the public entry point the
 * shell scripts use) in a child JVM, running the given sink connectors from the assembled Iceberg
 * plugin directory.
 *
 * <p>Before the start it creates the connectors' control topics (one partition): the sink's
 * coordinator otherwise times out on a broker without topic auto-creation. {@link #start} returns
 * when every connector and task reports RUNNING on the worker's REST API; a FAILED one ends the
 * start with its trace.
 */
public final class ConnectWorker implements AutoCloseable {
  static final String MAIN = "org.apache.kafka.connect.cli.ConnectStandalone";

  private static final Logger LOGGER = LoggerFactory.getLogger(ConnectWorker.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration POLL = Duration.ofMillis(200);
  private static final int LOG_TAIL_LINES = 40;

  private final String restUrl;
  private final List<String> connectors;
  private final ChildProcess child;

  private ConnectWorker(String restUrl, List<String> connectors, ChildProcess child) {
    this.restUrl = restUrl;
    this.connectors = connectors;
    this.child = child;
  }

  /**
   * Starts the worker with its connectors and waits until all run.
   *
   * @throws StartupException if the class path or plugin directory is missing, the worker exits, a
   *     connector or task fails, or they are not running by {@link Options#startTimeout()}
   */
  public static ConnectWorker start(Options options) {
    Objects.requireNonNull(options, "options");
    long started = System.nanoTime();
    Path dir = options.dataDir();
    Path logFile = dir.resolve("connect.log");
    List<Path> jars;
    try {
      jars =
          ChildClasspath.jarsIn(
              options.workerLib(), "build it with: mvn -pl archive -am package -Pquick");
      ChildClasspath.jarsIn(
          options.pluginPath().resolve("iceberg-sink").resolve("lib"),
          "build it with: mvn -pl archive -am package -Pquick");
    } catch (IllegalArgumentException e) {
      throw new StartupException("Kafka Connect cannot start: " + e.getMessage(), logFile);
    }
    createControlTopics(options, logFile);
    int port = options.restPort() == 0 ? Ports.free(options.host()) : options.restPort();
    String restUrl = "http://" + options.host() + ":" + port;
    List<String> args = new ArrayList<>();
    List<String> names = new ArrayList<>();
    Path log4j2 = dir.resolve("connect-log4j2.properties");
    try {
      Files.createDirectories(dir);
      Path worker = dir.resolve("worker.properties");
      Files.writeString(worker, workerProperties(options, port), StandardCharsets.UTF_8);
      args.add(worker.toString());
      for (int i = 0; i < options.connectors().size(); i++) {
        String connector = options.connectors().get(i);
        Properties parsed = new Properties();
        parsed.load(new StringReader(connector));
        String name = parsed.getProperty("name");
        if (name == null || name.isBlank()) {
          throw new IllegalArgumentException("connector configuration " + i + " has no name");
        }
        names.add(name);
        Path file = dir.resolve("connector-" + name + ".properties");
        Files.writeString(file, connector, StandardCharsets.UTF_8);
        args.add(file.toString());
      }
      Files.writeString(log4j2, LOG4J2, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write Connect's configuration in " + dir, e);
    }
    ChildProcess child =
        ChildProcess.builder(MAIN)
            .classpath(ChildClasspath.of(jars))
            .jvmFlags(
                ChildProcess.smallJvmFlags(
                    options.heapMiB(), "-Dlog4j2.configurationFile=" + log4j2.toUri()))
            .args(args)
            .logFile(logFile)
            .stopTimeout(Duration.ofSeconds(20))
            .start();
    child.awaitReady(() -> awaitRunning(child, restUrl, names, options.startTimeout()));
    LOGGER.info(
        "Kafka Connect ready restUrl={} connectors={} pid={} startMillis={}",
        restUrl,
        names,
        child.pid(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    return new ConnectWorker(restUrl, List.copyOf(names), child);
  }

  /** The worker's REST API, e.g. {@code http://127.0.0.1:8083}. */
  public String restUrl() {
    return restUrl;
  }

  public List<String> connectors() {
    return connectors;
  }

  public Path logFile() {
    return child.logFile();
  }

  public boolean isAlive() {
    return child.isAlive();
  }

  /**
   * Each connector's state: {@code RUNNING} when it and all its tasks run, {@code FAILED:<trace>}
   * when one failed, else what it is waiting for.
   */
  public Map<String, String> states() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    Map<String, String> states = new LinkedHashMap<>();
    for (String name : connectors) {
      states.put(name, state(http, restUrl, name));
    }
    return states;
  }

  /** Stop it before the broker: otherwise its shutdown waits on broker timeouts. */
  @Override
  public void close() {
    child.close();
  }

  @Override
  public String toString() {
    return "ConnectWorker[restUrl=" + restUrl + ", pid=" + child.pid() + "]";
  }

  static String workerProperties(Options options, int port) {
    Map<String, String> values = new HashMap<>();
    values.put("BOOTSTRAP_SERVERS", options.bootstrapServers());
    values.put("OFFSETS_FILE", options.dataDir().resolve("connect.offsets").toString());
    values.put("PLUGIN_PATH", options.pluginPath().toString());
    values.put("REST_HOST", options.host());
    values.put("REST_PORT", Integer.toString(port));
    values.put("MAX_RECORD_BYTES", Long.toString(options.maxRecordBytes()));
    return ConnectTemplates.render(ConnectTemplates.WORKER, values);
  }

  private static void createControlTopics(Options options, Path logFile) {
    if (options.controlTopics().isEmpty()) {
      return;
    }
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            options.bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            30_000,
            AdminClientConfig.CLIENT_ID_CONFIG,
            "prefixlog-archive-setup");
    try (Admin admin = Admin.create(config)) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> missing = new ArrayList<>();
      for (String topic : options.controlTopics()) {
        if (!existing.contains(topic)) {
          missing.add(new NewTopic(topic, 1, (short) 1));
        }
      }
      for (var result : admin.createTopics(missing).values().entrySet()) {
        try {
          result.getValue().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new StartupException(
          "cannot create the archive's control topics "
              + options.controlTopics()
              + " on "
              + options.bootstrapServers()
              + ": "
              + e,
          logFile,
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while creating control topics", logFile, e);
    }
  }

  private static void awaitRunning(
      ChildProcess child, String restUrl, List<String> names, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    String lastState = "REST API not answering";
    while (true) {
      OptionalInt exit = child.exitStatus();
      if (exit.isPresent()) {
        throw child.startupFailure(
            "Kafka Connect exited with status " + exit.getAsInt(), LOG_TAIL_LINES);
      }
      boolean allRunning = true;
      for (String name : names) {
        String state = state(http, restUrl, name);
        if (state.startsWith("FAILED")) {
          throw child.startupFailure(
              "connector " + name + " failed: " + state.substring(7), LOG_TAIL_LINES);
        }
        if (!state.equals("RUNNING")) {
          allRunning = false;
          lastState = name + ": " + state;
          break;
        }
      }
      if (allRunning) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw child.startupFailure(
            "Kafka Connect not running within " + timeout + " (last: " + lastState + ")",
            LOG_TAIL_LINES);
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StartupException("interrupted while waiting for Connect", child.logFile(), e);
      }
    }
  }

  /** RUNNING when the connector and all its (at least one) tasks run; FAILED:trace; else why. */
  static String state(HttpClient http, String restUrl, String name) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(restUrl + "/connectors/" + name + "/status"))
            .timeout(Duration.ofSeconds(5))
            .build();
    JsonNode status;
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return "HTTP " + response.statusCode();
      }
      status = JSON.readTree(response.body());
    } catch (IOException e) {
      return "REST API not answering";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    JsonNode connector = status.path("connector");
    if ("FAILED".equals(connector.path("state").asText())) {
      return "FAILED:" + connector.path("trace").asText();
    }
    JsonNode tasks = status.path("tasks");
    for (JsonNode task : tasks) {
      if ("FAILED".equals(task.path("state").asText())) {
        return "FAILED:task " + task.path("id").asText() + ": " + task.path("trace").asText();
      }
    }
    if (!"RUNNING".equals(connector.path("state").asText())) {
      return "connector " + connector.path("state").asText();
    }
    if (tasks.isEmpty()) {
      return "no tasks yet";
    }
    for (JsonNode task : tasks) {
      if (!"RUNNING".equals(task.path("state").asText())) {
        return "task " + task.path("id").asText() + " " + task.path("state").asText();
      }
    }
    return "RUNNING";
  }

  private static final String LOG4J2 =
      ChildLog4j2.warnToStdout(
          "ConnectWorker",
          "# The sink's commits: one line per snapshot.",
          "logger.commit.name = org.apache.iceberg.connect.channel.Coordinator",
          "logger.commit.level = info");

  /**
   * How to start the worker.
   *
   * @param dataDir configuration, offsets file and {@code connect.log}
   * @param workerLib the worker's jars ({@code archive/target/connect-worker/lib})
   * @param pluginPath the directory holding {@code iceberg-sink/lib/*.jar} ({@code
   *     archive/target/iceberg-sink-plugin})
   * @param restPort 0 picks a free one
   * @param maxRecordBytes the sink consumers' fetch sizes: the largest record they must read
   * @param connectors rendered connector properties, e.g. {@link ConnectTemplates#sink}
   * @param controlTopics created (one partition) if absent
   */
  public record Options(
      Path dataDir,
      Path workerLib,
      Path pluginPath,
      String bootstrapServers,
      String host,
      int restPort,
      int heapMiB,
      long maxRecordBytes,
      List<String> connectors,
      List<String> controlTopics,
      Duration startTimeout) {
    public Options {
      Objects.requireNonNull(dataDir, "dataDir");
      Objects.requireNonNull(workerLib, "workerLib");
      Objects.requireNonNull(pluginPath, "pluginPath");
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(startTimeout, "startTimeout");
      dataDir = dataDir.toAbsolutePath().normalize();
      workerLib = workerLib.toAbsolutePath().normalize();
      pluginPath = pluginPath.toAbsolutePath().normalize();
      connectors = List.copyOf(connectors);
      controlTopics = List.copyOf(controlTopics);
      if (restPort < 0 || restPort > 65535) {
        throw new IllegalArgumentException("restPort must be 0-65535 but was " + restPort);
      }
      if (heapMiB < 128) {
        throw new IllegalArgumentException("heapMiB must be at least 128 but was " + heapMiB);
      }
      if (connectors.isEmpty()) {
        throw new IllegalArgumentException("at least one connector is needed");
      }
    }
  }
}
