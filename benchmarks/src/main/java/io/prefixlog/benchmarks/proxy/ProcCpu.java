package io.prefixlog.benchmarks.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of a process from {@code /proc/<pid>/stat}: utime + stime (fields 14 and 15), in
 * nanoseconds. Every thread of the process counts (for a JVM: request threads, the Kafka producer,
 * GC and JIT), so it is what the process costs the machine.
 */
final class ProcCpu {
  /** Linux's USER_HZ, the unit of utime and stime (getconf CLK_TCK). */
  private static final long TICKS_PER_SECOND = 100;

  private ProcCpu() {}

  /** CPU nanoseconds used so far by {@code pid}, or -1 when it cannot be read. */
  static long nanos(long pid) {
    try {
      String stat =
          Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
      // The command name (field 2) is in parentheses and may hold spaces: split after it.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU nanoseconds per thread group of {@code pid}: threads named alike (digits and a trailing
   * "-N" or "#N" removed, {@code /proc/<pid>/task/<tid>/comm}, 15 characters at most) add up.
   * Threads that ended before the reading are missing; empty when it cannot be read.
   */
  static Map<String, Long> threadGroupNanos(long pid) {
    return perThreadGroup(
        pid,
        task -> {
          String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
          return ticks * (1_000_000_000L / TICKS_PER_SECOND);
        });
  }

  /**
   * Nanoseconds each thread group of {@code pid} spent runnable but waiting for a CPU ({@code
   * /proc/<pid>/task/<tid>/schedstat}, second field): how long the cores were taken when a thread
   * had work. Grouped as {@link #threadGroupNanos}.
   */
  static Map<String, Long> threadGroupWaitNanos(long pid) {
    return perThreadGroup(
        pid,
        task ->
            Long.parseLong(
                Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII)
                    .trim()
                    .split(" ")[1]));
  }

  private interface TaskReader {
    long read(Path task) throws IOException;
  }

  private static Map<String, Long> perThreadGroup(long pid, TaskReader reader) {
    Map<String, Long> groups = new TreeMap<>();
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        try {
          String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).trim();
          groups.merge(
              name.replaceAll("[-#]?\\d+$", "").replaceAll("\\d", ""),
              reader.read(task),
              Long::sum);
        } catch (IOException | RuntimeException e) {
          // The thread ended between listing and reading: it is not counted.
          continue;
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return groups;
  }

  /** CPU nanoseconds of {@code pid} and all its live descendants, or -1. */
  static long treeNanos(ProcessHandle process) {
    long total = nanos(process.pid());
    if (total < 0) {
      return -1;
    }
    for (ProcessHandle child : process.descendants().toList()) {
      long used = nanos(child.pid());
      if (used > 0) {
        total += used;
      }
    }
    return total;
  }
}
