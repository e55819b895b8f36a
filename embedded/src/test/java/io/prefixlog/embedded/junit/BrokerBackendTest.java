package io.prefixlog.embedded.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.embedded.ChildProcess;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerBackendTest {
  @Test
  void shouldChooseTestcontainersInAutoModeWhenDockerIsAvailable() {
    // When / Then
    assertThat(BrokerBackend.choose(null, () -> true)).isEqualTo(BrokerBackend.TESTCONTAINERS);
    assertThat(BrokerBackend.choose("auto", () -> true)).isEqualTo(BrokerBackend.TESTCONTAINERS);
  }

  @Test
  void shouldChooseTheProcessInAutoModeWithoutDocker() {
    // When / Then
    assertThat(BrokerBackend.choose("", () -> false)).isEqualTo(BrokerBackend.PROCESS);
    assertThat(BrokerBackend.choose(" AUTO ", () -> false)).isEqualTo(BrokerBackend.PROCESS);
  }

  @Test
  void shouldChooseTheProcessWhenAskedWithoutProbingDocker() {
    // When / Then
    assertThat(
            BrokerBackend.choose(
                "process",
                () -> {
                  throw new AssertionError("Docker must not be probed");
                }))
        .isEqualTo(BrokerBackend.PROCESS);
  }

  @Test
  void shouldFailWhenTestcontainersIsAskedForWithoutDocker() {
    // When / Then
    assertThatThrownBy(() -> BrokerBackend.choose("testcontainers", () -> false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "PREFIXLOG_TEST_BROKER=testcontainers but Testcontainers is not on the test class path"
                + " or finds no Docker engine; use PREFIXLOG_TEST_BROKER=process or auto");
  }

  @Test
  void shouldRejectAnUnknownSettingNamingIt() {
    // When / Then
    assertThatThrownBy(() -> BrokerBackend.choose("docker", () -> true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "PREFIXLOG_TEST_BROKER must be process, testcontainers or auto but was 'docker'");
  }

  @Test
  void shouldMapBrokerPropertiesToApacheKafkaImageVariables() {
    // When / Then
    assertThat(ContainerBroker.envName("transaction.state.log.min.isr"))
        .isEqualTo("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR");
    assertThat(ContainerBroker.envName("a_b-c.d")).isEqualTo("KAFKA_A__B___C_D");
  }

  @Test
  void shouldLoadTheExtensionAndChooseTheProcessWhenTestcontainersIsNotOnTheClassPath(
      @TempDir Path dir) throws Exception {
    // Given: this JVM's class path without Testcontainers and docker-java
    String classpath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("testcontainers") && !entry.contains("docker-java"))
            .collect(Collectors.joining(File.pathSeparator));
    Path logFile = dir.resolve("probe.log");

    // When
    OptionalInt status;
    try (ChildProcess probe =
        ChildProcess.builder(BackendProbe.class.getName())
            .classpath(classpath)
            .logFile(logFile)
            .start()) {
      status = probe.waitFor(Duration.ofSeconds(30));
    }

    // Then
    assertThat(Files.readString(logFile))
        .isEqualTo("testcontainers=absent\nextension=loaded\nbackend=PROCESS\n");
    assertThat(status).hasValue(0);
  }
}
