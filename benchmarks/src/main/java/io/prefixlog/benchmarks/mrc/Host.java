package io.prefixlog.benchmarks.mrc;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What the figures depend on: cores, CPU model, JVM, load, heap. (The streams benchmark has its own
 * package-private copy of the first four.)
 */
final class Host {
  private Host() {}

  static String loadAverage() {
    try {
      String[] fields =
          Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return String.format(Locale.ROOT, "%.2f (1 min)", load);
    }
  }

  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: the model is only a label.
      return System.getProperty("os.arch");
    }
    return System.getProperty("os.arch");
  }

  static String machine() {
    Runtime runtime = Runtime.getRuntime();
    return String.format(
        Locale.ROOT,
        "%d cores (availableProcessors), %s, %s %s",
        runtime.availableProcessors(),
        cpuModel(),
        System.getProperty("os.name"),
        System.getProperty("os.version"));
  }

  static String jvm() {
    return String.format(
        Locale.ROOT,
        "%s %s (%s), max heap %d MiB, VM args %s",
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        System.getProperty("java.vendor"),
        Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getRuntimeMXBean().getInputArguments());
  }

  /** Heap in use after a full GC, in MiB. */
  static long usedHeapAfterGcMiB() {
    System.gc();
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return (runtime.totalMemory() - runtime.freeMemory()) >> 20;
  }

  /** The largest heap use seen by the heap pools' peak counters since the last reset, in MiB. */
  static long peakHeapMiB() {
    long peak = 0;
    List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
    for (MemoryPoolMXBean pool : pools) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak >> 20;
  }

  static void resetPeakHeap() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  static double gcSeconds() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
            .mapToLong(gc -> Math.max(0, gc.getCollectionTime()))
            .sum()
        / 1000.0;
  }
}
