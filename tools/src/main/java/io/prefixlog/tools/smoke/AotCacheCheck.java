package io.prefixlog.tools.smoke;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The bridge container's JVM runs with the image's AOT cache (Java 25, the cache trained at image
 * build). The image's entry point adds {@code -XX:AOTCache=$JAVA_AOT_CACHE} after {@code
 * $JAVA_OPTS}, and a cache the JVM cannot use (flags it was not trained with, such as a heap above
 * 32 GiB without compressed oops, or a missing file) only costs a warning on the log and the first
 * minute's latency: the JVM runs without it. A JVM that accepted the cache has the file mapped, so
 * {@code /proc/1/maps} (the JVM: the entry point execs it) proves it; one that rejected it has
 * unmapped it again.
 */
final class AotCacheCheck {
  private AotCacheCheck() {}

  /**
   * The container's {@code JAVA_AOT_CACHE} (the image's, or compose's if it set one) as its first
   * line, then the JVM's memory map.
   */
  static String read(String containerId) throws IOException, InterruptedException {
    return Processes.output(
        List.of(
            "docker",
            "exec",
            containerId,
            "sh",
            "-c",
            "printf '%s\\n' \"${JAVA_AOT_CACHE:-}\"; cat /proc/1/maps"));
  }

  /** Why the output of {@link #read} shows no AOT cache in use, or empty when it does. */
  static Optional<String> problem(String output) {
    List<String> lines = output.lines().toList();
    String cache = lines.isEmpty() ? "" : lines.get(0).strip();
    if (cache.isEmpty()) {
      return Optional.of("JAVA_AOT_CACHE is not set: the image was built without an AOT cache");
    }
    // A maps line ends with the mapped file's path after the inode column's padding.
    boolean mapped =
        lines.stream().skip(1).anyMatch(l -> l.endsWith(" " + cache) || l.equals(cache));
    if (!mapped) {
      return Optional.of(
          cache
              + " is not mapped by the JVM (process 1): it started without its AOT cache (see its"
              + " log's [aot] lines; JAVA_OPTS the cache was not trained with?)");
    }
    return Optional.empty();
  }

  /** The cache's path, for the smoke's report, from an output {@link #problem} accepted. */
  static String path(String output) {
    return output.lines().findFirst().orElse("").strip();
  }
}
