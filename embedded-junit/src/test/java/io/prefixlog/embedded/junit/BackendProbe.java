package io.prefixlog.embedded.junit;

/**
 * Run as a child with Testcontainers removed from its class path: prints whether Testcontainers is
 * absent, that {@link KafkaExtension} still loads, and the backend auto chooses.
 */
public final class BackendProbe {
  private BackendProbe() {}

  public static void main(String[] args) throws Exception {
    System.out.println(
        "testcontainers="
            + (isPresent("org.testcontainers.DockerClientFactory") ? "present" : "absent"));
    Class.forName(KafkaExtension.class.getName(), true, BackendProbe.class.getClassLoader());
    System.out.println("extension=loaded");
    System.out.println(
        "backend="
            + BrokerBackend.choose(
                "auto",
                BrokerBackend::testcontainersDockerAvailable,
                BrokerBackend::verifiedImagePresent));
    System.out.flush();
  }

  private static boolean isPresent(String className) {
    try {
      Class.forName(className, false, BackendProbe.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
