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
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerBackendTest {
  private static final BooleanSupplier NEVER_PROBED =
      () -> {
        throw new AssertionError("must not be probed");
      };

  @Test
  void shouldChooseTestcontainersInAutoModeWhenDockerHasTheVerifiedImage() {
    // When / Then
    assertThat(BrokerBackend.choose(null, () -> true, () -> true))
        .isEqualTo(BrokerBackend.TESTCONTAINERS);
    assertThat(BrokerBackend.choose("auto", () -> true, () -> true))
        .isEqualTo(BrokerBackend.TESTCONTAINERS);
  }

  @Test
  void shouldChooseTheProcessInAutoModeWhenDockerHasNoVerifiedImage() {
    // A Docker engine that answers but cannot pull apache/kafka (no registry), or holds only
    // prefixlog's offline stand-in of it: the process broker, and Testcontainers is never asked
    // (its probe starts Ryuk, which such an engine spends two minutes failing to pull)
    assertThat(BrokerBackend.choose("auto", NEVER_PROBED, () -> false))
        .isEqualTo(BrokerBackend.PROCESS);
  }

  @Test
  void shouldChooseTheProcessInAutoModeWithoutDocker() {
    // When / Then
    assertThat(BrokerBackend.choose("", () -> false, () -> true)).isEqualTo(BrokerBackend.PROCESS);
    assertThat(BrokerBackend.choose(" AUTO ", NEVER_PROBED, () -> false))
        .isEqualTo(BrokerBackend.PROCESS);
  }

  @Test
  void shouldNotTakeTheStandInForTheRealImage() throws Exception {
    // Given: this machine's engine, if any (the compose smoke test leaves the stand-in tagged
    // apache/kafka:4.3.1 in it)
    Process inspect =
        new ProcessBuilder(
                "sh",
                "-c",
                "docker image inspect --format '{{json .Config.Labels}}' "
                    + ContainerBroker.IMAGE
                    + " 2>/dev/null")
            .start();
    String labels = new String(inspect.getInputStream().readAllBytes()).strip();
    inspect.waitFor();

    // Then: verified only when an image is there without the stand-in label
    boolean realImage = inspect.exitValue() == 0 && !labels.contains(BrokerBackend.STAND_IN_LABEL);
    assertThat(BrokerBackend.verifiedImagePresent()).isEqualTo(realImage);
  }

  @Test
  void shouldChooseTheProcessWhenAskedWithoutProbingDocker() {
    // When / Then
    assertThat(BrokerBackend.choose("process", NEVER_PROBED, NEVER_PROBED))
        .isEqualTo(BrokerBackend.PROCESS);
  }

  @Test
  void shouldLetTestcontainersPullWhenAskedForExplicitly() {
    assertThat(BrokerBackend.choose("testcontainers", () -> true, NEVER_PROBED))
        .isEqualTo(BrokerBackend.TESTCONTAINERS);
  }

  @Test
  void shouldFailWhenTestcontainersIsAskedForWithoutDocker() {
    // When / Then
    assertThatThrownBy(() -> BrokerBackend.choose("testcontainers", () -> false, NEVER_PROBED))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "PREFIXLOG_TEST_BROKER=testcontainers but Testcontainers is not on the test class path"
                + " or finds no Docker engine; use PREFIXLOG_TEST_BROKER=process or auto");
  }

  @Test
  void shouldRejectAnUnknownSettingNamingIt() {
    // When / Then
    assertThatThrownBy(() -> BrokerBackend.choose("docker", () -> true, () -> true))
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
