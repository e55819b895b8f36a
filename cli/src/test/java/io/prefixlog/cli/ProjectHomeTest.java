package io.prefixlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProjectHomeTest {
  @TempDir Path dir;

  @Test
  void shouldFindTheParentPomAboveAModuleDirectory() throws IOException {
    // Given: a root POM with modules, and a module POM that names it as parent
    Files.writeString(
        dir.resolve("pom.xml"),
        "<project><artifactId>prefixlog-parent</artifactId><modules></modules></project>");
    Path module = Files.createDirectories(dir.resolve("tools/src/main"));
    Files.writeString(
        dir.resolve("tools/pom.xml"),
        "<project><parent><artifactId>prefixlog-parent</artifactId></parent></project>");

    // When / Then
    assertThat(ProjectHome.findFrom(module)).contains(dir.toAbsolutePath().normalize());
  }

  @Test
  void shouldFindNothingOutsideTheProject() {
    assertThat(ProjectHome.findFrom(dir)).isEmpty();
  }

  @Test
  void shouldFindThisProjectFromTheWorkingDirectory() {
    assertThat(ProjectHome.findFrom(Path.of("")).orElseThrow().resolve("corpora/SOURCES.md"))
        .isRegularFile();
  }
}
