package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildProcessTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void shouldAppendStdoutAndStderrToTheLogFileAndReportTheExitStatus() throws Exception {
    // Given
    Path logFile = dir.resolve("logs/echo.log");
    Files.createDirectories(logFile.getParent());
    Files.writeString(logFile, "earlier run\n");

    // When
    OptionalInt status;
    try (ChildProcess child =
        ChildProcess.builder(TestMains.Echo.class.getName())
            .args(List.of("7", "a b", "c"))
            .logFile(logFile)
            .start()) {
      status = child.waitFor(TIMEOUT);
    }

    // Then
    assertThat(status).hasValue(7);
    assertThat(Files.readString(logFile)).isEqualTo("earlier run\nout 7 a b c\nerr 7 a b c\n");
  }

  @Test
  void shouldNameTheLogAndQuoteItsEndInAStartupFailure() throws Exception {
    // Given
    Path logFile = dir.resolve("fails.log");
    try (ChildProcess child =
        ChildProcess.builder(TestMains.Echo.class.getName())
            .args(List.of("3", "x"))
            .logFile(logFile)
            .start()) {
      child.waitFor(TIMEOUT);

      // When
      StartupException failure = child.startupFailure("echo exited with status 3", 1);

      // Then
      assertThat(failure.logFile()).isEqualTo(logFile);
      assertThat(failure)
          .hasMessage("echo exited with status 3; see " + logFile + ", which ends with:\nerr 3 x");
    }
  }

  @Test
  void shouldGiveSmallJvmFlagsWithTheHeapAndTheExtraFlagsLast() {
    assertThat(ChildProcess.smallJvmFlags(256, "-Dx=1"))
        .containsExactly("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dx=1");
  }

  @Test
  void shouldStopWithSigtermLettingSlowShutdownHooksFinishAndCloseTwiceSafely() throws Exception {
    // Given: a clean shutdown that takes 300 ms
    Path logFile = dir.resolve("sleep.log");
    ChildProcess child =
        ChildProcess.builder(TestMains.SleepForever.class.getName())
            .args(List.of("300"))
            .logFile(logFile)
            .start();
    awaitLogContent(logFile, "ready\n");

    // When
    child.close();
    child.close();

    // Then
    assertThat(child.isAlive()).isFalse();
    assertThat(child.exitStatus()).hasValue(143);
    assertThat(Files.readString(logFile))
        .isEqualTo("ready\nshutdown hook ran\nshutdown hook done\n");
  }

  @Test
  void shouldKillAChildThatDoesNotStopWithinTheStopTimeout() throws Exception {
    // Given: a shutdown hook that outlasts the stop timeout
    Path logFile = dir.resolve("stubborn.log");
    ChildProcess child =
        ChildProcess.builder(TestMains.SleepForever.class.getName())
            .args(List.of("600000"))
            .logFile(logFile)
            .stopTimeout(Duration.ofMillis(500))
            .start();
    awaitLogContent(logFile, "ready\n");

    // When
    child.close();

    // Then
    assertThat(child.isAlive()).isFalse();
    assertThat(child.exitStatus()).hasValue(137);
    assertThat(Files.readString(logFile)).isEqualTo("ready\nshutdown hook ran\n");
  }

  @Test
  void shouldHaltWithoutShutdownHooksWhenStdinReachesEndOfFile() throws Exception {
    // Given: the child's command, started by hand so the test can close the stdin pipe
    Path logFile = dir.resolve("orphan.log");
    List<String> command =
        ChildProcess.builder(TestMains.SleepForever.class.getName()).args(List.of("0")).command();
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(logFile.toFile())
            .redirectErrorStream(true)
            .start();
    try {
      awaitLogContent(logFile, "ready\n");

      // When
      process.getOutputStream().close();

      // Then
      assertThat(process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isEqualTo(Watchdog.PARENT_GONE_STATUS);
      assertThat(Files.readString(logFile))
          .isEqualTo(
              "ready\nprefixlog watchdog: parent process gone (stdin reached end-of-file),"
                  + " halting\n");
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void shouldBuildTheCommandFromJavaHomeFlagsClasspathWatchdogAndMain() {
    // Given
    ChildProcess.Builder builder =
        ChildProcess.builder("com.example.Main")
            .args(List.of("x", "y"))
            .classpath("/a.jar:/b")
            .jvmFlags(List.of("-Xmx64m"));

    // When
    List<String> command = builder.command();

    // Then
    assertThat(command)
        .containsExactly(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx64m",
            "-cp",
            "/a.jar:/b",
            "io.prefixlog.embedded.Watchdog",
            "com.example.Main",
            "x",
            "y");
  }

  @Test
  void shouldUseSmallFootprintFlagsAndTheParentClasspathByDefault() {
    // When
    List<String> command = ChildProcess.builder("com.example.Main").command();

    // Then
    assertThat(command.subList(1, 6))
        .containsExactly(
            "-Xmx512m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"));
  }

  @Test
  void shouldRejectAStartWithoutLogFileNamingTheMainClass() {
    // Given
    ChildProcess.Builder builder = ChildProcess.builder("com.example.Main");

    // When / Then
    assertThatThrownBy(builder::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("logFile is required for child com.example.Main");
  }

  @Test
  void shouldRejectABlankMainClassNamingTheValue() {
    // When / Then
    assertThatThrownBy(() -> ChildProcess.builder(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("mainClass must not be blank but was ' '");
  }

  static void awaitLogContent(Path logFile, String expected) {
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () ->
                assertThat(
                        Files.exists(logFile)
                            ? new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8)
                            : "")
                    .as("content of " + logFile)
                    .isEqualTo(expected));
  }
}
