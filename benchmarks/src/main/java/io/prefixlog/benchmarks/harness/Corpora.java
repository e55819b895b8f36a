package io.prefixlog.benchmarks.harness;

import io.prefixlog.cli.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the benchmarks find the conversation corpora when {@code --corpora} is not given. */
public final class Corpora {
  private Corpora() {}

  /**
   * {@code corpora/} in the working directory or the nearest parent that has one (benchmarks run
   * from the checkout or from a module directory).
   */
  public static Path find() throws UsageException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("corpora");
      if (Files.isRegularFile(candidate.resolve("SOURCES.md"))) {
        return candidate;
      }
    }
    throw new UsageException(
        "no corpora/SOURCES.md in the working directory or its parents: pass --corpora DIR");
  }
}
