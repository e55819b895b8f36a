package io.prefixlog.benchmarks.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The state and broker directories a benchmark run leaves behind, removed between runs. */
public final class ScratchDirs {
  private ScratchDirs() {}

  /**
   * Deletes {@code dir} and everything under it, children before their parents; nothing when it
   * does not exist (a run that failed early may not have made it).
   */
  public static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
