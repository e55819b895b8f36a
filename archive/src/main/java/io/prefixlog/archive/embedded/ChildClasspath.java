package io.prefixlog.archive.embedded;

import io.prefixlog.embedded.Watchdog;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Class paths of the archive's child JVMs: their own jars plus the {@link Watchdog}. */
final class ChildClasspath {
  private ChildClasspath() {}

  /** The jar or class directory holding the watchdog main class. */
  static Path watchdogLocation() {
    try {
      return Path.of(Watchdog.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the watchdog class", e);
    }
  }

  /** {@code jars} (in order) and the watchdog, as a class path string. */
  static String of(List<Path> jars) {
    List<String> entries = new ArrayList<>();
    jars.forEach(j -> entries.add(j.toAbsolutePath().toString()));
    entries.add(watchdogLocation().toString());
    return String.join(File.pathSeparator, entries);
  }

  /** Every jar in {@code dir}, sorted by name; fails with a hint when there are none. */
  static List<Path> jarsIn(Path dir, String hint) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(dir + " does not exist; " + hint);
    }
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> jars =
          files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
      if (jars.isEmpty()) {
        throw new IllegalArgumentException(dir + " holds no jars; " + hint);
      }
      return jars;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }
}
