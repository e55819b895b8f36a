package io.prefixlog.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Runs {@code bin/prefixlog-compose-env --file FILE}, the script a compose user runs first. */
final class ComposeEnvScript {
  static final Path SCRIPT = Repository.root().resolve("bin/prefixlog-compose-env");

  record Run(int exitCode, String output) {}

  private ComposeEnvScript() {}

  static Run run(Path file) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(SCRIPT.toString(), "--file", file.toString())
            .redirectErrorStream(true)
            .start();
    if (!process.waitFor(1, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException(SCRIPT + " did not finish in a minute");
    }
    return new Run(
        process.exitValue(),
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
