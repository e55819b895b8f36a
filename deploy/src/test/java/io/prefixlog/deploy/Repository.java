package io.prefixlog.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository root: the nearest directory above the working directory with the compose file. */
final class Repository {
  static final String COMPOSE_FILE = "docker-compose.yml";

  private Repository() {}

  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.isRegularFile(dir.resolve(COMPOSE_FILE))
          && Files.isDirectory(dir.resolve("deploy"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "no " + COMPOSE_FILE + " above " + Path.of("").toAbsolutePath());
  }
}
