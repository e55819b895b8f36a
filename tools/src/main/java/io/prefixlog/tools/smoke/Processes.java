package io.prefixlog.tools.smoke;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the external commands of the smoke test (docker, docker-compose, scripts) with a bound. */
final class Processes {
  /** Exit status and the merged output of one run. */
  record Result(int exitCode, String output) {
    /** The last {@code lines} lines of the output. */
    String tail(int lines) {
      List<String> all = output.lines().toList();
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
  }

  private Processes() {}

  static Result run(List<String> command, Duration timeout)
      throws IOException, InterruptedException {
    return run(command, timeout, null, Map.of());
  }

  /**
   * @param directory the working directory, or null for this process's
   * @param env variables added to this process's environment
   */
  static Result run(List<String> command, Duration timeout, Path directory, Map<String, String> env)
      throws IOException, InterruptedException {
    Path output = Files.createTempFile("prefixlog-smoke", ".out");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
      if (directory != null) {
        builder.directory(directory.toFile());
      }
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        return new Result(
            124,
            Files.readString(output, StandardCharsets.UTF_8)
                + "\n(killed after "
                + timeout.toSeconds()
                + " s: "
                + String.join(" ", command)
                + ")");
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** The output of a short command that must succeed. */
  static String output(List<String> command) throws IOException, InterruptedException {
    Result result = run(command, Duration.ofSeconds(30));
    if (result.exitCode() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + result.tail(10));
    }
    return result.output();
  }

  static boolean onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return true;
      }
    }
    return false;
  }
}
