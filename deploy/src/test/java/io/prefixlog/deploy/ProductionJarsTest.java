package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What ships holds no test support and no demo: the jars of the production modules contain neither
 * the JUnit extension nor the demo engine, and the images' libraries (target/lib of the stream app
 * and the bridge) bring in neither those modules nor JUnit.
 */
class ProductionJarsTest {
  private static final Path ROOT = Repository.root();
  private static final List<String> PRODUCTION =
      List.of("core", "schemas", "embedded", "stream-app", "ingest-bridge", "archive");

  @Test
  void shouldKeepTestSupportAndTheDemoOutOfTheProductionJars() throws IOException {
    List<String> found = new ArrayList<>();
    for (String module : PRODUCTION) {
      Path jar = jar(module);
      try (JarFile file = new JarFile(jar.toFile())) {
        Collections.list(file.entries()).stream()
            .map(e -> e.getName())
            .filter(n -> n.startsWith("io/prefixlog/demo/") || n.contains("/embedded/junit/"))
            .forEach(n -> found.add(module + ": " + n));
      }
    }
    assertThat(found).isEmpty();
  }

  @Test
  void shouldKeepThemOutOfTheImagesLibraries() throws IOException {
    List<String> found = new ArrayList<>();
    for (String module : List.of("stream-app", "ingest-bridge")) {
      try (Stream<Path> libs = Files.list(ROOT.resolve(module).resolve("target/lib"))) {
        libs.map(p -> p.getFileName().toString())
            .filter(
                n ->
                    n.startsWith("prefixlog-demo-engine")
                        || n.startsWith("prefixlog-embedded-junit")
                        || n.startsWith("junit-"))
            .forEach(n -> found.add(module + "/target/lib: " + n));
      }
    }
    assertThat(found).isEmpty();
  }

  private static Path jar(String module) throws IOException {
    Path target = ROOT.resolve(module).resolve("target");
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(
              f ->
                  f.getFileName()
                      .toString()
                      .matches("prefixlog-" + module + "-[^-]+(-SNAPSHOT)?\\.jar"))
          .findFirst()
          .orElseThrow(() -> new AssertionError(module + "'s jar is not built: mvn package first"));
    }
  }
}
