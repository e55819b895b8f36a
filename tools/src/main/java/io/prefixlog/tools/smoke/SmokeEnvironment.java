package io.prefixlog.tools.smoke;

import io.prefixlog.embedded.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The env file of the smoke test's compose project, as a user's {@code .env}: the secrets that
 * {@code bin/prefixlog-compose-env} writes, the bridge pointed at the demo engine, a short archive
 * commit interval, and free host ports for everything compose publishes (a stack already running on
 * the defaults is left alone).
 */
record SmokeEnvironment(Path file, Map<String, String> values) {
  /** The host ports compose publishes, each given a free one. */
  static final List<String> PORTS =
      List.of(
          "KAFKA_EXTERNAL_PORT",
          "BRIDGE_PROXY_PORT",
          "BRIDGE_METRICS_PORT",
          "MINIO_PORT",
          "MINIO_CONSOLE_PORT",
          "POSTGRES_PORT",
          "DEMO_STATUS_PORT",
          "PROMETHEUS_PORT",
          "UI_PORT",
          "VLLM_PORT");

  static SmokeEnvironment write(Path root, Path file) throws IOException, InterruptedException {
    Files.createDirectories(file.getParent());
    Files.deleteIfExists(file);
    Processes.Result secrets =
        Processes.run(
            List.of(
                root.resolve("bin/prefixlog-compose-env").toString(), "--file", file.toString()),
            Duration.ofMinutes(1));
    if (secrets.exitCode() != 0) {
      throw new SmokeFailure("bin/prefixlog-compose-env failed: " + secrets.tail(10));
    }
    Map<String, String> values = new LinkedHashMap<>();
    values.put("PREFIXLOG_PROXY_UPSTREAM", "http://demo-engine:8000");
    values.put("PREFIXLOG_KV_ENDPOINTS", "tcp://demo-engine:5557");
    values.put("PREFIXLOG_KV_REPLAY_ENDPOINTS", "tcp://demo-engine:5558");
    values.put("ARCHIVE_COMMIT_INTERVAL_MS", "5000");
    // Distinct ports (two services publishing one host port fail `up` with "port is already
    // allocated": it happened in a CI run), and none an outgoing connection may take meanwhile.
    int[] free = Ports.free("127.0.0.1", PORTS.size());
    for (int i = 0; i < free.length; i++) {
      values.put(PORTS.get(i), Integer.toString(free[i]));
    }
    StringBuilder text = new StringBuilder("# prefixlog compose-smoke\n");
    values.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    // The secrets too, for the checks that open the archive and derive nothing else.
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0 && !line.startsWith("#")) {
        values.putIfAbsent(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return new SmokeEnvironment(file, Map.copyOf(values));
  }

  String get(String name) {
    String value = values.get(name);
    if (value == null) {
      throw new IllegalStateException(name + " is not in " + file);
    }
    return value;
  }

  /**
   * The {@code PREFIXLOG_KAFKA_*} variables of an operator on the host: SASL/PLAIN as Kafka's
   * admin, as the README tells the operator to export them.
   */
  Map<String, String> operatorKafkaVariables() {
    return Map.of(
        "PREFIXLOG_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
        "PREFIXLOG_KAFKA_SASL_MECHANISM", "PLAIN",
        "PREFIXLOG_KAFKA_SASL_JAAS_CONFIG",
            KafkaAclProbes.jaas("admin", get("KAFKA_ADMIN_PASSWORD")));
  }

  int port(String name) {
    return Integer.parseInt(get(name));
  }
}
