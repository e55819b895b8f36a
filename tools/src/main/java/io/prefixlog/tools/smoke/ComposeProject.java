package io.prefixlog.tools.smoke;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The repository's docker-compose.yml as one project of its own: {@code docker-compose -p NAME
 * --env-file FILE -f docker-compose.yml --profile demo}, and the state of its containers as {@code
 * docker inspect} reports it.
 */
final class ComposeProject {
  /** Services that run once and exit ({@code restart: "no"}): ready when they exited 0. */
  static final Set<String> ONE_SHOTS =
      Set.of("kafka-init", "minio-init", "catalog-init", "connect-init");

  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One container: its service, state, exit code and health ("" without a health check). */
  record Container(
      String id, String name, String service, String status, int exitCode, String health) {
    boolean ready() {
      if (ONE_SHOTS.contains(service)) {
        return status.equals("exited") && exitCode == 0;
      }
      return status.equals("running") && (health.isEmpty() || health.equals("healthy"));
    }

    boolean failed() {
      return ONE_SHOTS.contains(service)
          ? status.equals("exited") && exitCode != 0
          : status.equals("exited") || health.equals("unhealthy");
    }

    @Override
    public String toString() {
      return name
          + " "
          + status
          + (health.isEmpty() ? "" : " (" + health + ")")
          + (status.equals("exited") ? " exit " + exitCode : "");
    }
  }

  private final Path root;
  private final String name;
  private final Path envFile;

  ComposeProject(Path root, String name, Path envFile) {
    this.root = root;
    this.name = name;
    this.envFile = envFile;
  }

  String name() {
    return name;
  }

  /** {@code docker-compose ... ARGS}; the result whatever the exit code. */
  Processes.Result run(String... args) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "docker-compose",
                "-p",
                name,
                "--env-file",
                envFile.toString(),
                "-f",
                root.resolve("docker-compose.yml").toString(),
                "--profile",
                "demo"));
    command.addAll(List.of(args));
    // The compose file's own settings come from the env file only.
    return Processes.run(command, COMMAND_TIMEOUT, root, Map.of("COMPOSE_PROJECT_NAME", name));
  }

  /** {@code docker-compose ... ARGS}, which must exit 0. */
  String runOrThrow(String... args) throws IOException, InterruptedException {
    Processes.Result result = run(args);
    if (result.exitCode() != 0) {
      throw new SmokeFailure(
          "docker-compose " + String.join(" ", args) + " failed:\n" + result.tail(30));
    }
    return result.output();
  }

  /** Every container of the project, running or not, by name. */
  Map<String, Container> containers() throws IOException, InterruptedException {
    List<String> ids =
        Processes.output(
                List.of(
                    "docker", "ps", "-aq", "--filter", "label=com.docker.compose.project=" + name))
            .lines()
            .filter(l -> !l.isBlank())
            .toList();
    Map<String, Container> containers = new TreeMap<>();
    if (ids.isEmpty()) {
      return containers;
    }
    // The state as JSON: a container without a health check has no Health key, which a template
    // naming it fails on.
    List<String> inspect =
        new ArrayList<>(
            List.of(
                "docker",
                "inspect",
                "--format",
                "{{.Id}}|{{.Name}}|{{index .Config.Labels \"com.docker.compose.service\"}}|{{json"
                    + " .State}}"));
    inspect.addAll(ids);
    for (String line : Processes.output(inspect).lines().toList()) {
      String[] f = line.split("\\|", 4);
      if (f.length == 4) {
        JsonNode state = JSON.readTree(f[3]);
        Container c =
            new Container(
                f[0],
                f[1].replaceFirst("^/", ""),
                f[2],
                state.path("Status").asText(),
                state.path("ExitCode").asInt(),
                state.path("Health").path("Status").asText(""));
        containers.put(c.name(), c);
      }
    }
    return containers;
  }

  /** The environment of container {@code id} as Docker started it, {@code NAME=value} each. */
  List<String> environment(String id) throws IOException, InterruptedException {
    JsonNode env =
        JSON.readTree(
            Processes.output(List.of("docker", "inspect", "--format", "{{json .Config.Env}}", id)));
    List<String> entries = new ArrayList<>();
    env.forEach(entry -> entries.add(entry.asText()));
    return entries;
  }

  /**
   * Waits until every container of {@code services} is ready (healthy, running, or a one-shot that
   * exited 0); fails at once when one failed, with its log.
   *
   * @return the containers, ready
   */
  Map<String, Container> awaitReady(Set<String> services, int expected, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, Container> containers = Map.of();
    while (System.nanoTime() < deadline) {
      containers = containers();
      List<Container> relevant =
          containers.values().stream().filter(c -> services.contains(c.service())).toList();
      for (Container c : relevant) {
        if (c.failed()) {
          throw new SmokeFailure(c + ":\n" + logs(c.service(), 40));
        }
      }
      if (relevant.size() >= expected && relevant.stream().allMatch(Container::ready)) {
        return containers;
      }
      TimeUnit.SECONDS.sleep(2);
    }
    StringBuilder state = new StringBuilder();
    containers.values().forEach(c -> state.append("\n  ").append(c));
    throw new SmokeFailure("not ready within " + timeout.toSeconds() + " s:" + state);
  }

  /** The last {@code lines} log lines of a service (for a failure report). */
  String logs(String service, int lines) throws IOException, InterruptedException {
    return run("logs", "--no-color", "--tail=" + lines, service).output();
  }

  /** What is left of the project: containers, networks and volumes carrying its label. */
  List<String> leftovers() throws IOException, InterruptedException {
    List<String> left = new ArrayList<>();
    String filter = "label=com.docker.compose.project=" + name;
    for (List<String> command :
        List.of(
            List.of("docker", "ps", "-aq", "--filter", filter),
            List.of("docker", "network", "ls", "-q", "--filter", filter),
            List.of("docker", "volume", "ls", "-q", "--filter", filter))) {
      Processes.output(command)
          .lines()
          .filter(l -> !l.isBlank())
          .forEach(id -> left.add(command.get(1) + " " + id));
    }
    return left;
  }
}
