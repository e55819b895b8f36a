package io.prefixlog.benchmarks.harness;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Where the benchmarks find the conversation corpora when {@code --corpora} is not given. */
public final class Corpora {
  /** The {@code --corpora} option of the benchmarks that read the corpora; {@link #of} reads it. */
  public static final Option OPTION =
      Option.value("corpora", "DIR", "corpora/ found upwards", "The conversation corpora.");

  private Corpora() {}

  /** The directory {@code --corpora} names, else the one {@link #find} finds. */
  public static Path of(CommandLine line) throws UsageException {
    Optional<String> given = line.value("corpora");
    return given.isPresent() ? Path.of(given.get()) : find();
  }

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

  /**
   * The {@code .jsonl} files directly in one corpus directory, sorted so that every run reads them
   * in the same order; none when the directory is missing (a checkout may lack a corpus kind).
   */
  public static List<Path> jsonl(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }
}
