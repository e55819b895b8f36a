package io.prefixlog.tools.smoke;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bridge container's threads as the kernel schedules them: the capture threads (publisher and
 * the capture producer's network thread) below the event loops, the JIT below those, and no thread
 * above normal. This is what the image's {@code JAVA_OPTS} (the priority policy flags) and {@code
 * PREFIXLOG_PROXY_CAPTURE_PRIORITY} are for: a wrong or missing flag leaves every thread at nice 0
 * without any error, so only the kernel's view proves it.
 */
final class ThreadNiceCheck {
  /** Thread names as the kernel keeps them: the first 15 bytes of the Java thread's name. */
  static final String EVENT_LOOP = "vert.x-eventloo";

  static final String PUBLISHER = "prefixlog-proxy";
  static final String PRODUCER = "kafka-producer-";
  static final String COMPILER = "C2 CompilerThre";

  /** One thread: its kernel name and nice value. */
  record KernelThread(String name, int nice) {}

  private ThreadNiceCheck() {}

  /** The threads of process 1 (the JVM: the image's entry point execs it) in a container. */
  static List<KernelThread> threads(String containerId) throws IOException, InterruptedException {
    String stats =
        Processes.output(
            List.of("docker", "exec", containerId, "sh", "-c", "cat /proc/1/task/*/stat"));
    List<KernelThread> threads = new ArrayList<>();
    for (String line : stats.lines().toList()) {
      if (!line.isBlank()) {
        threads.add(parse(line));
      }
    }
    return threads;
  }

  /**
   * One line of {@code /proc/PID/task/TID/stat}. The name sits in parentheses and may hold spaces
   * and parentheses itself, so the fields are counted from the last ')'; nice is field 19.
   */
  static KernelThread parse(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    String[] after = stat.substring(close + 2).split(" ");
    // after[0] is field 3 (state), so field 19 (nice) is after[16].
    return new KernelThread(stat.substring(open + 1, close), Integer.parseInt(after[16]));
  }

  /**
   * The problems found, or none: the capture threads nicer than every event loop, the compiler
   * threads nicer than the event loops, and no thread below nice 0.
   */
  static List<String> problems(List<KernelThread> threads) {
    Map<String, List<Integer>> byName = new TreeMap<>();
    for (KernelThread t : threads) {
      byName.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(t.nice());
    }
    List<String> problems = new ArrayList<>();
    List<Integer> loops = byName.getOrDefault(EVENT_LOOP, List.of());
    if (loops.isEmpty()) {
      problems.add("no event-loop thread (" + EVENT_LOOP + ")");
      return problems;
    }
    int loopNice = loops.stream().mapToInt(Integer::intValue).max().orElseThrow();
    requireAbove(byName, PUBLISHER, loopNice, true, problems);
    // The bridge's KV-event subscriber has a producer of its own at normal priority: one capture
    // producer thread below the loops is what the setting promises.
    requireAbove(byName, PRODUCER, loopNice, false, problems);
    requireAbove(byName, COMPILER, loopNice, true, problems);
    for (KernelThread t : threads) {
      if (t.nice() < 0) {
        problems.add(t.name() + " at nice " + t.nice() + ", above normal");
      }
    }
    return problems;
  }

  private static void requireAbove(
      Map<String, List<Integer>> byName,
      String name,
      int loopNice,
      boolean every,
      List<String> problems) {
    List<Integer> nices = byName.getOrDefault(name, List.of());
    boolean ok =
        every
            ? !nices.isEmpty() && nices.stream().allMatch(n -> n > loopNice)
            : nices.stream().anyMatch(n -> n > loopNice);
    if (!ok) {
      problems.add(
          name + " at nice " + nices + ", not below the event loops (nice " + loopNice + ")");
    }
  }

  /** A one-line summary of the nice values found, for the smoke's report. */
  static String summary(List<KernelThread> threads) {
    Map<String, Integer> nice = new TreeMap<>();
    for (KernelThread t : threads) {
      if (List.of(EVENT_LOOP, PUBLISHER, PRODUCER, COMPILER).contains(t.name())) {
        nice.merge(t.name(), t.nice(), Math::max);
      }
    }
    return "nice: event loops "
        + nice.get(EVENT_LOOP)
        + ", publisher "
        + nice.get(PUBLISHER)
        + ", JIT "
        + nice.get(COMPILER);
  }
}
