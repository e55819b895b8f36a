package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The images' build context (the repository root filtered by /.dockerignore) holds what
 * deploy/docker/Dockerfile copies — each app's jar and target/lib — and nothing else but the
 * Dockerfile. The filter is applied by docker-py's {@code exclude_paths}, the implementation of
 * .dockerignore that Debian's docker-compose builds with (package python3-docker, installed with
 * docker-compose); like {@link DockerCompose}, skipped without it unless {@code CI=true}.
 */
class BuildContextTest {
  private static final Path ROOT = Repository.root();
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  @TempDir Path dir;

  @Test
  void shouldSendOnlyTheMavenBuiltJarsAndTheDockerfile() throws Exception {
    // Given
    DockerCompose.require();
    Assumptions.assumeTrue(Files.isExecutable(PYTHON), PYTHON + " is missing");
    for (String module : List.of("stream-app", "ingest-bridge", "demo-engine", "tools")) {
      assertThat(ROOT.resolve(module).resolve("target/lib"))
          .as("%s/target/lib: run `mvn package` first", module)
          .isDirectoryContaining(p -> p.getFileName().toString().endsWith(".jar"));
    }

    // When
    List<String> context = contextFiles();

    // Then
    assertThat(context)
        .contains(
            "deploy/docker/Dockerfile",
            "stream-app/target/prefixlog-stream-app-0.1.0-SNAPSHOT.jar",
            "stream-app/target/lib/kafka-streams-4.3.1.jar",
            "stream-app/target/lib/prefixlog-core-0.1.0-SNAPSHOT.jar",
            "ingest-bridge/target/prefixlog-ingest-bridge-0.1.0-SNAPSHOT.jar",
            "ingest-bridge/target/lib/jeromq-0.6.0.jar",
            "demo-engine/target/prefixlog-demo-engine-0.1.0-SNAPSHOT.jar",
            "tools/target/prefixlog-tools-0.1.0-SNAPSHOT.jar")
        .anySatisfy(f -> assertThat(f).startsWith("stream-app/target/lib/rocksdbjni-"))
        .noneSatisfy(f -> assertThat(f).endsWith("-tests.jar"))
        .allSatisfy(
            f ->
                assertThat(f)
                    .matches(
                        "\\.dockerignore|deploy/docker/Dockerfile"
                            + "|(stream-app|ingest-bridge|demo-engine|tools)/target/lib(/[^/]+\\.jar)?"
                            + "|(stream-app|ingest-bridge|demo-engine|tools)/target/prefixlog-[\\w.-]+"
                            + "\\.jar"));
  }

  private List<String> contextFiles() throws Exception {
    String script =
        "import sys\n"
            + "import docker.utils.build as build\n"
            + "root = sys.argv[1]\n"
            + "with open(root + '/.dockerignore') as f:\n"
            + "    patterns = [l.strip() for l in f if l.strip() and not l.startswith('#')]\n"
            + "for p in sorted(build.exclude_paths(root, patterns,"
            + " dockerfile='deploy/docker/Dockerfile')):\n"
            + "    print(p)\n";
    Path out = dir.resolve("context.txt");
    Process process =
        new ProcessBuilder(PYTHON.toString(), "-c", script, ROOT.toString())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output.lines().toList();
  }
}
