package io.prefixlog.tools.replay;

import io.prefixlog.cli.UsageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Turns {@code --corpus} arguments (files or directories) into the corpus files to read. */
final class CorpusSources {
  private CorpusSources() {}

  /**
   * The files, in argument order; a directory contributes every {@code *.jsonl} below it, sorted by
   * path.
   *
   * @param paths the {@code --corpus} values; when empty, {@code <home>/corpora}
   * @param home the project root, if found
   * @throws UsageException when a path does not exist, or no corpus is given and none is found
   */
  static List<Path> resolve(List<String> paths, Optional<Path> home) throws UsageException {
    List<Path> roots = new ArrayList<>();
    if (paths.isEmpty()) {
      if (home.isEmpty()) {
        throw new UsageException(
            "no corpus found: pass --corpus PATH, or run from the prefixlog project (or via"
                + " bin/prefixlog) so that corpora/ is found");
      }
      Path corpora = home.get().resolve("corpora");
      if (!Files.isDirectory(corpora)) {
        throw new UsageException(
            "no corpus found: " + corpora + " is not a directory; pass --corpus PATH");
      }
      roots.add(corpora);
    } else {
      for (String path : paths) {
        roots.add(Path.of(path));
      }
    }
    List<Path> files = new ArrayList<>();
    for (Path root : roots) {
      if (Files.isRegularFile(root)) {
        files.add(root);
      } else if (Files.isDirectory(root)) {
        List<Path> found = jsonlBelow(root);
        if (found.isEmpty()) {
          throw new UsageException("--corpus " + root + ": no *.jsonl files in this directory");
        }
        files.addAll(found);
      } else {
        throw new UsageException("--corpus " + root + ": no such file or directory");
      }
    }
    return files;
  }

  private static List<Path> jsonlBelow(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.getFileName().toString().endsWith(".jsonl"))
          .filter(Files::isRegularFile)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }
}
