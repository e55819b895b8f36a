package io.prefixlog.benchmarks.harness;

import io.prefixlog.core.text.Sha256;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What the figures depend on: cores, CPU model, JVM, load, heap; Linux {@code /proc} where it
 * helps. Every benchmark prints {@link #header} first, so that two runs' figures can be told apart
 * by the machine and the load they ran under.
 */
public final class Machine {
  private Machine() {}

  /** The lines every benchmark's output starts with after its title: machine, JVM, load. */
  public static void header(PrintStream out) {
    out.println("machine: " + machine());
    out.println("java: " + jvm());
    out.println("load average at start (1/5/15 min): " + loadAverage());
  }

  /**
   * {@link #header(PrintStream)}, then where the measured prefixlog-core class came from: which
   * build the figures are of.
   */
  public static void header(PrintStream out, Class<?> measured) {
    header(out);
    out.println("prefixlog-core measured: " + codeSource(measured));
  }

  /** The closing line: the load at the end, to compare with the one at the start. */
  public static void footer(PrintStream out) {
    out.println("load average at end (1/5/15 min): " + loadAverage());
  }

  public static String loadAverage() {
    try {
      String[] fields =
          Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return String.format(Locale.ROOT, "%.2f (1 min)", load);
    }
  }

  public static String cpuModel() {
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

  public static String machine() {
    Runtime runtime = Runtime.getRuntime();
    return String.format(
        Locale.ROOT,
        "%d cores (availableProcessors), %s, %s %s",
        runtime.availableProcessors(),
        cpuModel(),
        System.getProperty("os.name"),
        System.getProperty("os.version"));
  }

  public static String jvm() {
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
  public static long usedHeapAfterGcMiB() {
    System.gc();
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return (runtime.totalMemory() - runtime.freeMemory()) >> 20;
  }

  /** The largest heap use seen by the heap pools' peak counters since the last reset, in MiB. */
  public static long peakHeapMiB() {
    long peak = 0;
    List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
    for (MemoryPoolMXBean pool : pools) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak >> 20;
  }

  public static void resetPeakHeap() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  public static double gcSeconds() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
            .mapToLong(gc -> Math.max(0, gc.getCollectionTime()))
            .sum()
        / 1000.0;
  }

  /**
   * Where a class was loaded from, with the jar's time and the start of its SHA-256: which build
   * was measured.
   */
  public static String codeSource(Class<?> type) {
    try {
      Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!Files.isRegularFile(location)) {
        return location.toString();
      }
      return location
          + " (modified "
          + Files.getLastModifiedTime(location)
          + ", sha256 "
          + Sha256.hex(Files.readAllBytes(location)).substring(0, 12)
          + ")";
    } catch (IOException | URISyntaxException | RuntimeException e) {
      return "unknown (" + e.getClass().getSimpleName() + ")";
    }
  }
}
