package io.prefixlog.tools.smoke;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The security probes the compose deployment must pass, as an attacker would try them. A page in
 * the operator's browser that rebinds its DNS name to 127.0.0.1 gets 403 from the UI and the
 * bridge's metrics on their published ports, where the same request by address passes, and finds no
 * host port of Kafka Connect's REST API (no authentication, and it runs any installed plugin).
 * Whoever reaches that API inside the compose network reads the connectors' configurations without
 * their secrets: the worker resolves {@code ${env:…}} itself. MinIO's root key is in no container
 * but MinIO's and its init's: the archive's services hold keys of their own.
 */
final class SecurityProbes {
  private static final String REBOUND = "attacker.example";
  private static final List<String> SECRETS =
      List.of("MINIO_ROOT_PASSWORD", "MINIO_SINK_PASSWORD", "POSTGRES_PASSWORD");

  /** The services that hold MinIO's root key: MinIO, and minio-init, which makes the users. */
  private static final List<String> MINIO_ROOT_HOLDERS = List.of("minio", "minio-init");

  /**
   * A GET of {@code $1} on the worker's REST API from inside its container, with bash's /dev/tcp
   * and head as the service's healthcheck does: the programs the Kafka image's offline stand-in
   * promises (deploy/standins/interfaces.yml) include no HTTP client. HTTP/1.0 makes the worker
   * close the connection after its answer.
   */
  private static final String GET_INSIDE =
      "exec 3<>/dev/tcp/127.0.0.1/8083 && printf 'GET %s HTTP/1.0\\r\\n\\r\\n' \"$1\" >&3"
          + " && head -c 1048576 <&3";

  private final SmokeEnvironment env;
  private final ComposeProject project;

  SecurityProbes(SmokeEnvironment env, ComposeProject project) {
    this.env = env;
    this.project = project;
  }

  /** Runs every probe; a one-line summary, or {@link SmokeFailure} naming the one that failed. */
  String run() throws IOException, InterruptedException {
    String worker = connectWorker();
    connectHasNoHostPort(worker);
    connectConfigsHoldNoSecret(worker, "prefixlog-archive-deltas");
    int ui = env.port("UI_PORT");
    int metrics = env.port("BRIDGE_METRICS_PORT");
    refusedWhenRebound("the UI", ui, "/health");
    refusedWhenRebound("the bridge's metrics", metrics, "/metrics");
    minioRootKeyOnlyWithMinio();
    return "security probes: Connect's REST API has no host port and its configs hold no secret;"
        + " rebound Host refused by the UI and the bridge's metrics; MinIO's root key only in "
        + String.join(" and ", MINIO_ROOT_HOLDERS);
  }

  /** The id of the project's one Connect worker container. */
  private String connectWorker() throws IOException, InterruptedException {
    List<ComposeProject.Container> workers =
        project.containers().values().stream().filter(c -> c.service().equals("connect")).toList();
    if (workers.size() != 1) {
      throw new SmokeFailure("expected one connect container, found " + workers);
    }
    return workers.get(0).id();
  }

  /** What Docker published of the running worker, not what the file says: nothing. */
  private static void connectHasNoHostPort(String worker) throws IOException, InterruptedException {
    String published = Processes.output(List.of("docker", "port", worker)).strip();
    if (!published.isEmpty()) {
      throw new SmokeFailure("Connect's REST API is published on the host: " + published);
    }
  }

  private void connectConfigsHoldNoSecret(String worker, String connector)
      throws IOException, InterruptedException {
    String path = "/connectors/" + connector + "/config";
    Processes.Result get =
        Processes.run(
            List.of("docker", "exec", worker, "bash", "-c", GET_INSIDE, "get", path),
            Duration.ofMinutes(1));
    String response = get.output();
    int headEnd = response.indexOf("\r\n\r\n");
    if (get.exitCode() != 0 || headEnd < 0 || !response.matches("(?s)HTTP/1\\.[01] 200 .*")) {
      throw new SmokeFailure(
          "Connect's GET " + path + " inside its container answered: " + get.tail(5));
    }
    String body = response.substring(headEnd + 4);
    for (String secret : SECRETS) {
      if (body.contains(env.get(secret))) {
        throw new SmokeFailure(
            "Connect's REST API returns " + secret + " in " + connector + "'s configuration");
      }
    }
    if (!body.contains("${env:S3_SECRET_KEY}") || !body.contains("${env:CATALOG_PASSWORD}")) {
      throw new SmokeFailure(
          connector + "'s configuration does not take its secrets from the worker's environment");
    }
  }

  /** No container but MinIO's and minio-init's has MinIO's root password in its environment. */
  private void minioRootKeyOnlyWithMinio() throws IOException, InterruptedException {
    String root = env.get("MINIO_ROOT_PASSWORD");
    List<String> holders = new java.util.ArrayList<>();
    for (ComposeProject.Container container : project.containers().values()) {
      if (project.environment(container.id()).stream().anyMatch(e -> e.contains(root))) {
        holders.add(container.service());
      }
    }
    if (!MINIO_ROOT_HOLDERS.containsAll(holders) || !holders.contains("minio")) {
      throw new SmokeFailure(
          "MinIO's root password is in the environment of " + holders + ", not only of MinIO's");
    }
  }

  private static void refusedWhenRebound(String what, int port, String path) throws IOException {
    String rebound = statusLine(port, path, REBOUND + ":" + port);
    String direct = statusLine(port, path, "127.0.0.1:" + port);
    if (!rebound.contains(" 403 ")) {
      throw new SmokeFailure(what + " answered a rebound Host with " + rebound);
    }
    if (rebound.equals(direct) || direct.contains(" 403 ")) {
      throw new SmokeFailure(what + " refused its own address too: " + direct);
    }
  }

  /** The status line of a GET with this Host, written as a browser writes it. */
  private static String statusLine(int port, String path, String host) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int end = response.indexOf("\r\n");
      return end < 0 ? response : response.substring(0, end);
    }
  }
}
