package io.prefixlog.benchmarks.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The CPU time of another JVM's threads, by what they do: its stream threads, its JIT compilers,
 * its garbage collector, and the rest.
 *
 * <p>The stream threads are found by their Java names ({@code jcmd Thread.print} gives each
 * thread's name and native id), not by {@code /proc}'s {@code comm}: that is cut to 15 characters,
 * and a native thread started from a stream thread (RocksDB starts some from the thread that opens
 * a store) inherits its {@code comm} until it names itself, so a prefix of it matched more than the
 * stream thread. Times come from {@code /proc/<pid>/task/<tid>/schedstat} in nanoseconds (the
 * {@code stat} ticks, 10 ms each, where the kernel has no schedstat).
 */
final class AppThreadCpu {
  /** CPU nanoseconds of the threads at one moment, by role. */
  record Sample(long stream, long jit, long gc, long other) {
    Sample minus(Sample before) {
      return new Sample(
          stream - before.stream, jit - before.jit, gc - before.gc, other - before.other);
    }
  }

  private static final Pattern THREAD_LINE =
      Pattern.compile("^\"([^\"]*)\".*\\bnid=(0x[0-9a-fA-F]+|[0-9]+)\\b", Pattern.MULTILINE);

  private final long pid;
  private final Pattern streamThreadName;

  private final Set<Long> streamThreads;

  /**
   * Finds the stream threads, waiting up to {@code wait} for a process that has just started to
   * start them (before a round's events are produced, so that no sample waits for {@code jcmd}).
   *
   * @param streamThreadName the Java names of the stream threads, as a regular expression
   */
  AppThreadCpu(long pid, Pattern streamThreadName, Duration wait) throws InterruptedException {
    this.pid = pid;
    this.streamThreadName = streamThreadName;
    long deadline = System.nanoTime() + wait.toNanos();
    Set<Long> found = streamThreadIds();
    while (found.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(250);
      found = streamThreadIds();
    }
    if (found.isEmpty()) {
      throw new IllegalStateException(
          "no thread of process " + pid + " is named like " + streamThreadName.pattern());
    }
    this.streamThreads = found;
  }

  /**
   * Whether the stream threads are still the ones found at the start: a thread that failed and was
   * replaced takes its CPU time with it, and its successor's time started elsewhere.
   */
  boolean sameStreamThreads() {
    return streamThreads.equals(streamThreadIds());
  }

  Sample sample() {
    long stream = 0;
    long jit = 0;
    long gc = 0;
    long other = 0;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks.toList()) {
        long tid = Long.parseLong(task.getFileName().toString());
        long nanos;
        String comm;
        try {
          nanos = cpuNanos(task);
          comm = Files.readString(task.resolve("comm")).trim();
        } catch (NoSuchFileException e) {
          continue; // the thread ended between the listing and the read
        }
        if (streamThreads.contains(tid)) {
          stream += nanos;
        } else if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
          jit += nanos;
        } else if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
          gc += nanos;
        } else {
          other += nanos;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the threads of process " + pid, e);
    }
    return new Sample(stream, jit, gc, other);
  }

  private static long cpuNanos(Path task) throws IOException {
    Path schedstat = task.resolve("schedstat");
    if (Files.exists(schedstat)) {
      String line = Files.readString(schedstat).trim();
      int space = line.indexOf(' ');
      return Long.parseLong(space < 0 ? line : line.substring(0, space));
    }
    String stat = Files.readString(task.resolve("stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
  }

  /** The native ids of the threads whose Java names match, from {@code jcmd Thread.print}. */
  private Set<Long> streamThreadIds() {
    String dump;
    try {
      Process jcmd =
          new ProcessBuilder("jcmd", Long.toString(pid), "Thread.print")
              .redirectErrorStream(true)
              .start();
      dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (jcmd.waitFor() != 0) {
        throw new IllegalStateException("jcmd " + pid + " Thread.print failed: " + dump);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run jcmd for the stream app's threads", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing the stream app's threads", e);
    }
    Set<Long> ids = new HashSet<>();
    Matcher m = THREAD_LINE.matcher(dump);
    while (m.find()) {
      if (streamThreadName.matcher(m.group(1)).matches()) {
        String nid = m.group(2);
        ids.add(nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid));
      }
    }
    return ids;
  }
}
