package io.prefixlog.benchmarks.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
