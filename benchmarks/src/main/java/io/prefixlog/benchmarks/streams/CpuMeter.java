package io.prefixlog.benchmarks.streams;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * CPU time of the parts of a run, read at the same instant so that a window's differences add up:
 * the stream thread(s) of one application, this whole JVM (RocksDB's native threads included), the
 * broker's child process and the machine ({@code /proc/stat}). On a 2-core box the broker and the
 * app compete for the same cores, so all four are needed to read a rate.
 */
final class CpuMeter {
  /** Linux's USER_HZ: {@code /proc} reports CPU time in these ticks (getconf CLK_TCK). */
  private static final long TICKS_PER_SECOND = 100;

  private static final long NANOS_PER_TICK = 1_000_000_000L / TICKS_PER_SECOND;

  private static final Pattern STREAM_THREAD_NAME = Pattern.compile(".*-StreamThread-\\d+");

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final long brokerPid;

  /**
   * @param brokerPid the broker's process id, or -1 when there is none to measure
   */
  CpuMeter(long brokerPid) {
    this.brokerPid = brokerPid;
  }

  /**
   * One reading. CPU figures are nanoseconds; a figure that cannot be read is -1.
   *
   * @param machineBusy ticks the machine's cores spent outside idle and iowait
   * @param machineTotal all ticks of all cores
   */
  record Snapshot(
      long wallNanos,
      long streamThreadNanos,
      long processNanos,
      long brokerNanos,
      long machineBusy,
      long machineTotal,
      Map<Long, Long> javaThreadNanos,
      Map<Long, String> javaThreadNames,
      Map<Group, Long> nativeNanos) {

    /** {@code this - earlier}, field by field. */
    Window since(Snapshot earlier) {
      long[] groups = new long[Group.values().length];
      Arrays.fill(groups, -1);
      if (!javaThreadNanos.isEmpty() && !earlier.javaThreadNanos.isEmpty()) {
        Arrays.fill(groups, 0);
        long java = 0;
        for (Map.Entry<Long, Long> e : javaThreadNanos.entrySet()) {
          long used = e.getValue() - earlier.javaThreadNanos.getOrDefault(e.getKey(), 0L);
          groups[Group.of(javaThreadNames.get(e.getKey())).ordinal()] += used;
          java += used;
        }
        groups[Group.JVM_AND_NATIVE.ordinal()] =
            Math.max(0, (processNanos - earlier.processNanos) - java);
        for (Group g : List.of(Group.GC, Group.JIT, Group.ROCKSDB)) {
          groups[g.ordinal()] =
              Math.max(
                  0, nativeNanos.getOrDefault(g, 0L) - earlier.nativeNanos.getOrDefault(g, 0L));
        }
      }
      return new Window(
          wallNanos - earlier.wallNanos,
          diff(streamThreadNanos, earlier.streamThreadNanos),
          diff(processNanos, earlier.processNanos),
          diff(brokerNanos, earlier.brokerNanos),
          machineTotal - earlier.machineTotal <= 0
              ? -1
              : (double) (machineBusy - earlier.machineBusy)
                  / (machineTotal - earlier.machineTotal),
          groups);
    }

    private static long diff(long later, long earlier) {
      return later < 0 || earlier < 0 ? -1 : later - earlier;
    }
  }

  /**
   * What happened between two snapshots.
   *
   * @param machineBusyFraction the share of all cores' time that was busy, or -1
   */
  record Window(
      long wallNanos,
      long streamThreadNanos,
      long processNanos,
      long brokerNanos,
      double machineBusyFraction,
      long[] groupNanos) {

    /** CPU of one group of the app's threads, or -1 when it was not broken down. */
    long group(Group group) {
      return groupNanos.length == 0 ? -1 : groupNanos[group.ordinal()];
    }

    /** A window with nothing measured (a failed run). */
    static Window empty() {
      long[] none = new long[Group.values().length];
      Arrays.fill(none, -1);
      return new Window(1, -1, -1, -1, -1, none);
    }
  }

  /** Where the app JVM's CPU goes, by thread. */
  enum Group {
    STREAM_THREAD("stream thread"),
    PRODUCER_IO("producer I/O thread"),
    OTHER_JAVA("other Java threads (admin, heartbeat, state updater, this benchmark's poller)"),
    JVM_AND_NATIVE("JVM-internal and native threads, all"),
    GC("  of which GC threads (/proc comm GC*, G1*)"),
    JIT("  of which JIT compiler threads (C1/C2 CompilerThre)"),
    ROCKSDB("  of which RocksDB background threads (rocksdb:*)");

    private final String label;

    Group(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }

    static Group of(String threadName) {
      if (threadName == null) {
        return OTHER_JAVA;
      }
      if (STREAM_THREAD_NAME.matcher(threadName).matches()) {
        return STREAM_THREAD;
      }
      if (threadName.startsWith("kafka-producer-network-thread")) {
        return PRODUCER_IO;
      }
      return OTHER_JAVA;
    }
  }

  /**
   * Whether a thread is a stream thread of {@code app} ({@code <app>-<uuid>-StreamThread-1}), not
   * one of its clients' threads ({@code kafka-producer-network-thread |
   * …-StreamThread-1-producer}).
   */
  static boolean isStreamThread(String threadName, String app) {
    return threadName.startsWith(app) && STREAM_THREAD_NAME.matcher(threadName).matches();
  }

  /** The ids of the live stream threads of {@code app}. */
  List<Long> streamThreadIds(String app) {
    List<Long> ids = new ArrayList<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
      if (info != null && isStreamThread(info.getThreadName(), app)) {
        ids.add(info.getThreadId());
      }
    }
    return ids;
  }

  /**
   * One reading.
   *
   * @param breakdown also read every Java thread's CPU time (for the first and last reading of a
   *     window: cheap, but not needed at every poll)
   */
  Snapshot read(List<Long> streamThreadIds, boolean breakdown) {
    Map<Long, Long> perThread = new HashMap<>();
    Map<Long, String> names = new HashMap<>();
    if (breakdown) {
      for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
        if (info != null) {
          long t = threads.getThreadCpuTime(info.getThreadId());
          if (t >= 0) {
            perThread.put(info.getThreadId(), t);
            names.put(info.getThreadId(), info.getThreadName());
          }
        }
      }
    }
    long threadNanos = streamThreadIds.isEmpty() ? -1 : 0;
    for (long id : streamThreadIds) {
      long t = threads.getThreadCpuTime(id);
      if (t >= 0) {
        threadNanos += t;
      }
    }
    long[] machine = machineTicks();
    return new Snapshot(
        System.nanoTime(),
        threadNanos,
        os.getProcessCpuTime(),
        brokerNanos(),
        machine[0],
        machine[1],
        perThread,
        names,
        breakdown ? nativeThreadNanos() : Map.of());
  }

  /** utime + stime of the broker from {@code /proc/<pid>/stat}. */
  private long brokerNanos() {
    if (brokerPid < 0) {
      return -1;
    }
    try {
      String stat =
          Files.readString(
              Path.of("/proc", Long.toString(brokerPid), "stat"), StandardCharsets.UTF_8);
      // The command name is in parentheses and may contain spaces: split after the last ')'.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      // f[0] is field 3 (state); utime and stime are fields 14 and 15.
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU of this process's non-Java threads by kind, from {@code /proc/self/task/<tid>/stat}: the
   * thread names there are the OS names HotSpot and RocksDB give (15 characters at most).
   */
  private static Map<Group, Long> nativeThreadNanos() {
    Map<Group, Long> nanos = new EnumMap<>(Group.class);
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
        } catch (IOException e) {
          continue; // the thread ended meanwhile
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String comm = stat.substring(open + 1, close);
        Group group;
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
          group = Group.GC;
        } else if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
          group = Group.JIT;
        } else if (comm.startsWith("rocksdb:")) {
          group = Group.ROCKSDB;
        } else {
          continue;
        }
        String[] f = stat.substring(close + 2).trim().split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        nanos.merge(group, ticks * NANOS_PER_TICK, Long::sum);
      }
    } catch (IOException | RuntimeException e) {
      return Map.of(); // not Linux: no breakdown
    }
    return nanos;
  }

  /** {busy, total} ticks over all cores from the first line of {@code /proc/stat}. */
  private static long[] machineTicks() {
    try {
      String first =
          Files.readAllLines(Path.of("/proc/stat"), StandardCharsets.US_ASCII).get(0).trim();
      String[] f = first.split("\\s+");
      long total = 0;
      long idle = 0;
      // cpu user nice system idle iowait irq softirq steal (guest time is inside user).
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        long v = Long.parseLong(f[i]);
        total += v;
        if (i == 4 || i == 5) {
          idle += v;
        }
      }
      return new long[] {total - idle, total};
    } catch (IOException | RuntimeException e) {
      return new long[] {0, 0};
    }
  }
}
