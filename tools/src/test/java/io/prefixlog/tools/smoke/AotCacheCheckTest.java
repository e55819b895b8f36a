package io.prefixlog.tools.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the compose smoke tells from the bridge container that its JVM runs with the AOT cache. */
class AotCacheCheckTest {
  /** Lines of a JDK 25 JVM's /proc/PID/maps (abridged), with the cache mapped or not. */
  private static final String JVM_MAPS =
      """
      5643e5a4d000-5643e5a4e000 r--p 00000000 fe:00 1315021                    /usr/lib/jvm/java-25-openjdk-amd64/bin/java
      7f3c1c000000-7f3c1c021000 rw-p 00000000 00:00 0
      7f3c2e9f5000-7f3c2f5d1000 r-xp 00253000 fe:00 1315102                    /usr/lib/jvm/java-25-openjdk-amd64/lib/server/libjvm.so
      """;

  private static final String CACHE_MAPPED =
      """
      3f001000-3f963000 rw-p 00001000 fe:00 2449453                            /app/app.aot
      3f963000-40d2a000 r--p 00963000 fe:00 2449453                            /app/app.aot
      """;

  @Test
  void shouldAcceptAJvmThatMappedTheImagesCache() {
    // Given
    String output = "/app/app.aot\n" + JVM_MAPS + CACHE_MAPPED;

    // When / Then
    assertThat(AotCacheCheck.problem(output)).isEmpty();
    assertThat(AotCacheCheck.path(output)).isEqualTo("/app/app.aot");
  }

  @Test
  void shouldFailAJvmThatStartedWithoutTheCache() {
    // Given: the JVM rejected the cache (say, JAVA_OPTS without compressed oops) and unmapped it
    String output = "/app/app.aot\n" + JVM_MAPS;

    // When / Then
    assertThat(AotCacheCheck.problem(output))
        .hasValueSatisfying(p -> assertThat(p).startsWith("/app/app.aot is not mapped by the JVM"));
  }

  @Test
  void shouldFailAnImageBuiltWithoutACache() {
    // Given: no AOT_TRAINING build arg, so JAVA_AOT_CACHE is empty
    String output = "\n" + JVM_MAPS;

    // When / Then
    assertThat(AotCacheCheck.problem(output))
        .hasValue("JAVA_AOT_CACHE is not set: the image was built without an AOT cache");
  }

  @Test
  void shouldNotTakeAnotherFileWhosePathEndsLikeTheCacheForIt() {
    // Given: a file whose path merely ends with the cache's name
    String output =
        "app.aot\n"
            + JVM_MAPS
            + "3f001000-3f963000 rw-p 00001000 fe:00 2449453      /tmp/app.aot\n";

    // When / Then
    assertThat(AotCacheCheck.problem(output)).isPresent();
  }
}
