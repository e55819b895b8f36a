package io.prefixlog.embedded.junit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Which broker {@link KafkaExtension} starts, chosen by {@code PREFIXLOG_TEST_BROKER}. */
enum BrokerBackend {
  /** {@link io.prefixlog.embedded.KafkaBroker}: a child JVM from the Kafka jars. */
  PROCESS,
  /** Testcontainers' {@code KafkaContainer} with the {@code apache/kafka} image. */
  TESTCONTAINERS;

  /** System property and environment variable naming the backend; the property wins. */
  static final String SETTING = "PREFIXLOG_TEST_BROKER";

  private static final String DOCKER_CLIENT_FACTORY = "org.testcontainers.DockerClientFactory";

  /** The label prefixlog's offline stand-in images carry (deploy/standins). */
  static final String STAND_IN_LABEL = "io.prefixlog.stand-in";

  /**
   * Resolves the setting ({@code process}, {@code testcontainers} or {@code auto}, default auto).
   *
   * <p>{@code auto} takes Testcontainers only when the engine already holds the real broker image:
   * an engine that answers is not enough (a machine with Docker but no registry would fail to pull
   * it), and prefixlog's offline stand-in tagged with the same name ({@code deploy/standins})
   * implements what compose uses, not what Testcontainers' {@code KafkaContainer} does. {@code
   * testcontainers} asks for it outright, pull included.
   *
   * @param dockerAvailable Testcontainers is on the class path and reaches an engine (asked in auto
   *     mode only when the image is verified)
   * @param imageVerified a Docker engine holds the real {@value ContainerBroker#IMAGE}, asked
   *     without Testcontainers
   */
  static BrokerBackend choose(
      String setting, BooleanSupplier dockerAvailable, BooleanSupplier imageVerified) {
    String value = setting == null || setting.isBlank() ? "auto" : setting.trim();
    switch (value.toLowerCase(Locale.ROOT)) {
      case "process":
        return PROCESS;
      case "testcontainers":
        if (!dockerAvailable.getAsBoolean()) {
          throw new IllegalStateException(
              SETTING
                  + "=testcontainers but Testcontainers is not on the test class path or finds no"
                  + " Docker engine; use "
                  + SETTING
                  + "=process or auto");
        }
        return TESTCONTAINERS;
      case "auto":
        // The image first: Testcontainers' own probe starts its Ryuk container, which an engine
        // without a registry spends two minutes failing to pull.
        return imageVerified.getAsBoolean() && dockerAvailable.getAsBoolean()
            ? TESTCONTAINERS
            : PROCESS;
      default:
        throw new IllegalArgumentException(
            SETTING + " must be process, testcontainers or auto but was '" + setting + "'");
    }
  }

  /** The setting from the system property, else the environment, else null. */
  static String configuredSetting() {
    String property = System.getProperty(SETTING);
    return property != null ? property : System.getenv(SETTING);
  }

  /**
   * Whether Testcontainers is on the class path and reaches a Docker engine. The class check comes
   * first so that {@link ContainerBroker}, the only class naming Testcontainers types, is never
   * loaded without them.
   */
  static boolean testcontainersDockerAvailable() {
    try {
      Class.forName(DOCKER_CLIENT_FACTORY, false, BrokerBackend.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    return ContainerBroker.dockerAvailable();
  }

  /**
   * Whether a Docker engine holds the real broker image, asked with the {@code docker} CLI (no
   * Testcontainers, no pull): the image must be there and must not carry prefixlog's stand-in
   * label. False without a docker client, an engine, or the image.
   */
  static boolean verifiedImagePresent() {
    try {
      Process process =
          new ProcessBuilder(
                  "docker",
                  "image",
                  "inspect",
                  "--format",
                  "{{json .Config.Labels}}",
                  ContainerBroker.IMAGE)
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
      return process.exitValue() == 0 && !output.contains(STAND_IN_LABEL);
    } catch (IOException e) {
      return false; // no docker client
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
