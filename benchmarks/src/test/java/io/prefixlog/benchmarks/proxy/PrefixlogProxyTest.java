package io.prefixlog.benchmarks.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PrefixlogProxyTest {
  private static final Pattern BRIDGE_JAVA_OPTS =
      Pattern.compile("^\\s*JAVA_OPTS: \\$\\{BRIDGE_JAVA_OPTS:-(.*)}\\s*$");

  @Test
  void theProxyRunsTheBridgeImagesJavaOptionsInAContainerOfTwoGibibytes() throws Exception {
    // Given: the bridge's JAVA_OPTS default in docker-compose.yml
    List<String> shipped = new ArrayList<>();
    for (String line : Files.readAllLines(composeFile(), StandardCharsets.UTF_8)) {
      Matcher m = BRIDGE_JAVA_OPTS.matcher(line);
      if (m.matches()) {
        shipped.addAll(List.of(m.group(1).trim().split("\\s+")));
      }
    }
    assertThat(shipped).as("the bridge's JAVA_OPTS default in docker-compose.yml").isNotEmpty();

    // When: no variant and no profiling flags
    List<String> flags = PrefixlogProxy.jvmFlags();

    // Then: exactly those, and the container's memory limit the percentages size the heap from
    List<String> expected = new ArrayList<>(shipped);
    expected.add("-XX:MaxRAM=2g");
    assertThat(flags).containsExactlyElementsOf(expected);
  }

  @Test
  void aVariantThatNamesACollectorReplacesTheImagesCollectorAndItsYoungGenerationSizing() {
    // Given: the benchmark's earlier proxy as a variant (Serial, a fixed heap, no priorities)
    List<String> variant =
        List.of(
            "-XX:+UseSerialGC",
            "-Xms512m",
            "-Xmx512m",
            "-Xmn384m",
            "-XX:+AlwaysPreTouch",
            "-XX:ThreadPriorityPolicy=0");

    // When
    List<String> flags = PrefixlogProxy.jvmFlags(variant);

    // Then: one collector, the variant's, with the variant's flags last (the JVM takes the last)
    List<String> expected = new ArrayList<>(PrefixlogProxy.JVM_FLAGS);
    expected.removeIf(f -> f.startsWith("-XX:+Use") && f.endsWith("GC"));
    expected.removeIf(f -> f.startsWith("-Xmn") || f.startsWith("-XX:NewRatio="));
    expected.addAll(variant);
    assertThat(flags).containsExactlyElementsOf(expected);
    assertThat(flags).filteredOn(f -> f.startsWith("-XX:+Use") && f.endsWith("GC")).hasSize(1);
  }

  private static Path composeFile() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("docker-compose.yml"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("a docker-compose.yml above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir.resolve("docker-compose.yml");
  }
}
