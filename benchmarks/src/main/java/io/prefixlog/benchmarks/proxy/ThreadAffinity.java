package io.prefixlog.benchmarks.proxy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Pins the proxy child's threads to CPUs, by name, with {@code taskset}, to try CPU affinity for
 * the capture threads against the event loops on small machines: {@code
 * -Dprefixlog.bench.affinity=<rule>+<rule>…} through a variant's flags, each rule {@code <name
 * prefix>=<cpus>}. The prefix is matched against the threads' OS names (the Java name cut to 15
 * characters: {@code vert.x-eventloo}, {@code prefixlog-proxy}, {@code kafka-producer-}, {@code C2
 * CompilerThre}); {@code <cpus>} is a {@code taskset} list given to every matching thread ({@code
 * 1}, {@code 0,1}), or CPUs separated by {@code /} handed out one per thread in the order the
 * threads were created ({@code 0/1}: the first event loop on CPU 0, the second on CPU 1). Applied
 * once the proxy listens; a thread created later takes its creator's set. Benchmark code: the
 * bridge itself pins nothing.
 */
final class ThreadAffinity {
  private ThreadAffinity() {}

  /** Applies {@code spec}; each pinned thread is printed to standard error (the child's log). */
  static void apply(String spec) throws IOException, InterruptedException {
    for (String rule : spec.split("\\+")) {
      int eq = rule.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("affinity rule is not <name prefix>=<cpus>: " + rule);
      }
      String prefix = rule.substring(0, eq);
      String cpus = rule.substring(eq + 1);
      String[] oneEach = cpus.contains("/") ? cpus.split("/") : null;
      List<Long> threads = threadsNamed(prefix);
      if (threads.isEmpty()) {
        throw new IllegalStateException("no thread of the proxy is named " + prefix + "…");
      }
      for (int i = 0; i < threads.size(); i++) {
        String set = oneEach == null ? cpus : oneEach[i % oneEach.length];
        Process taskset =
            new ProcessBuilder("taskset", "-p", "-c", set, Long.toString(threads.get(i)))
                .redirectErrorStream(true)
                .start();
        String out = new String(taskset.getInputStream().readAllBytes()).trim();
        if (taskset.waitFor() != 0) {
          throw new IOException("taskset failed for " + prefix + ": " + out);
        }
        System.err.println("affinity: " + prefix + " thread " + threads.get(i) + " on CPUs " + set);
      }
    }
  }

  /** The ids of this process's threads whose OS name starts with {@code prefix}, oldest first. */
  private static List<Long> threadsNamed(String prefix) throws IOException {
    List<Long> ids = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String name = Files.readString(task.resolve("comm")).trim();
        if (name.startsWith(prefix)) {
          ids.add(Long.parseLong(task.getFileName().toString()));
        }
      }
    }
    ids.sort(null);
    return ids;
  }
}
