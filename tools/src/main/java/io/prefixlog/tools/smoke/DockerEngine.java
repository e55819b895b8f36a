package io.prefixlog.tools.smoke;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Docker engine the smoke test runs compose on: the one that answers, or one it starts itself
 * ({@code dockerd}, when installed and this process is root: a CI machine has no init system to
 * start it). A started engine keeps running after the test, as a service would: the images it built
 * stay cached for the next run.
 */
final class DockerEngine {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  /** Where dockerd records its pid, and refuses to start while the file exists. */
  private static final Path PID_FILE = Path.of("/var/run/docker.pid");

  private DockerEngine() {}

  /** Why no engine can be had, or null when one answers (started now if need be). */
  static String ensureRunning(Path logFile) throws IOException, InterruptedException {
    if (answers()) {
      return null;
    }
    if (!Processes.onPath("dockerd")) {
      return "no Docker engine answers and dockerd is not installed"
          + " (scripts/install-test-deps.sh installs docker.io)";
    }
    if (!"0".equals(Processes.output(List.of("id", "-u")).strip())) {
      return "no Docker engine answers, and starting dockerd needs root";
    }
    Files.createDirectories(logFile.getParent());
    removeStalePidFile();
    new ProcessBuilder("dockerd")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
        .start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (answers()) {
        return null;
      }
      TimeUnit.MILLISECONDS.sleep(500);
    }
    return "dockerd did not answer within "
        + START_TIMEOUT.toSeconds()
        + " s (log: "
        + logFile
        + ")";
  }

  /**
   * Deletes a pid file whose dockerd is gone: a machine restarted without clearing /var/run (a
   * container or a VM snapshot) keeps the file of an engine that no longer runs, its pid maybe
   * another process's by now, and dockerd then refuses to start ("pid file found").
   */
  private static void removeStalePidFile() throws IOException {
    if (!Files.exists(PID_FILE)) {
      return;
    }
    String recorded = Files.readString(PID_FILE).strip();
    boolean dockerd =
        recorded.matches("\\d{1,10}")
            && ProcessHandle.of(Long.parseLong(recorded))
                .filter(ProcessHandle::isAlive)
                .flatMap(process -> process.info().command())
                .filter(command -> command.endsWith("dockerd"))
                .isPresent();
    if (!dockerd) {
      Files.delete(PID_FILE);
    }
  }

  static boolean answers() throws InterruptedException {
    try {
      return Processes.run(List.of("docker", "info"), Duration.ofSeconds(20)).exitCode() == 0;
    } catch (IOException e) {
      return false; // no docker client
    }
  }
}
