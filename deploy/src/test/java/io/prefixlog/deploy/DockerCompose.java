package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs Debian's {@code docker-compose} (v1, which validates and normalizes a file without a Docker
 * engine). When it is not installed, a check fails under {@code CI=true} (CI must install it:
 * scripts/install-test-deps.sh does) and is skipped with a message elsewhere.
 */
final class DockerCompose {
  static final String BINARY = "docker-compose";

  /** Exit status and output of one run. */
  record Result(int exitCode, String stdout, String stderr) {}

  /** The variables docker-compose.yml requires, with no default. */
  static final List<String> COMPOSE_SECRETS =
      List.of(
          "PREFIXLOG_SESSION_SECRET",
          "MINIO_ROOT_PASSWORD",
          "MINIO_SINK_PASSWORD",
          "MINIO_MAINTENANCE_PASSWORD",
          "POSTGRES_PASSWORD",
          "PREFIXLOG_UI_TOKEN",
          "PREFIXLOG_STATE_TOKEN",
          "VLLM_API_KEY",
          "KAFKA_ADMIN_PASSWORD",
          "KAFKA_BRIDGE_PASSWORD",
          "KAFKA_STREAMS_PASSWORD",
          "KAFKA_UI_PASSWORD",
          "KAFKA_CONNECT_PASSWORD");

  private static Path deploymentEnv;

  private final Path binary;

  private DockerCompose(Path binary) {
    this.binary = binary;
  }

  /** The binary on PATH, or a failed (CI) or aborted (elsewhere) test. */
  static DockerCompose require() {
    Optional<Path> found = onPath(System.getenv("PATH"));
    if (found.isPresent()) {
      return new DockerCompose(found.get());
    }
    String message =
        BINARY
            + " is not on PATH: the compose file is not validated. "
            + "scripts/install-test-deps.sh installs it (Debian package docker-compose).";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail("CI=true and " + message);
    }
    Assumptions.abort(message);
    throw new AssertionError("unreachable");
  }

  static Optional<Path> onPath(String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, BINARY);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Runs {@code docker-compose} with the secrets of a deployment: an env file that {@code
   * bin/prefixlog-compose-env} wrote (once per JVM), as a user's first step writes {@code .env}.
   */
  Result run(Path workingDirectory, String... args) throws IOException, InterruptedException {
    return run(workingDirectory, deploymentEnv(), args);
  }

  /**
   * Runs {@code docker-compose --env-file envFile ARGS}: that file is the only source of settings
   * (no {@code .env} of the working directory, no {@code PREFIXLOG_*} of this JVM's environment).
   */
  Result run(Path workingDirectory, Path envFile, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.add("--env-file");
    command.add(envFile.toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile("docker-compose", ".out");
    Path err = Files.createTempFile("docker-compose", ".err");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(workingDirectory.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      builder
          .environment()
          .keySet()
          .removeIf(k -> k.startsWith("PREFIXLOG_") || COMPOSE_SECRETS.contains(k));
      builder.environment().put("COMPOSE_PROJECT_NAME", "prefixlog");
      Process process = builder.start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        fail(String.join(" ", command) + " did not finish in 2 minutes");
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** An env file written by {@code bin/prefixlog-compose-env}, as a deployment's {@code .env}. */
  static synchronized Path deploymentEnv() throws IOException, InterruptedException {
    if (deploymentEnv == null) {
      Path file = Files.createTempFile("prefixlog-compose", ".env");
      file.toFile().deleteOnExit();
      ComposeEnvScript.Run run = ComposeEnvScript.run(file);
      if (run.exitCode() != 0) {
        fail("bin/prefixlog-compose-env failed: " + run.output());
      }
      deploymentEnv = file;
    }
    return deploymentEnv;
  }
}
