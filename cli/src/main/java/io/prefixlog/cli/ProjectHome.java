package io.prefixlog.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the project root (the directory of the parent {@code pom.xml}): the {@value #PROPERTY}
 * system property that {@code bin/prefixlog} sets, else the nearest directory at or above the
 * working directory whose {@code pom.xml} is prefixlog's parent POM (the module POMs name it too,
 * as their parent, but only the root lists {@code <modules>}).
 */
public final class ProjectHome {
  /** Set by {@code bin/prefixlog} to the root it resolved from its own location. */
  public static final String PROPERTY = "prefixlog.home";

  private static final String MARKER = "<artifactId>prefixlog-parent</artifactId>";

  private ProjectHome() {}

  /** The root, or empty when neither the property nor the working directory leads to one. */
  public static Optional<Path> find() {
    String property = System.getProperty(PROPERTY);
    if (property != null && !property.isBlank()) {
      return Optional.of(Path.of(property).toAbsolutePath().normalize());
    }
    return findFrom(Path.of("").toAbsolutePath());
  }

  /** The nearest directory at or above {@code start} holding prefixlog's parent POM. */
  public static Optional<Path> findFrom(Path start) {
    for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom) && isParentPom(pom)) {
        return Optional.of(dir);
      }
    }
    return Optional.empty();
  }

  private static boolean isParentPom(Path pom) {
    try {
      String text = Files.readString(pom, StandardCharsets.UTF_8);
      return text.contains(MARKER) && text.contains("<modules>");
    } catch (IOException e) {
      return false;
    }
  }
}
