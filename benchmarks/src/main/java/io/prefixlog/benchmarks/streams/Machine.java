package io.prefixlog.benchmarks.streams;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** What the figures depend on: cores, CPU model, JVM, load. Linux {@code /proc} where it helps. */
final class Machine {
  private Machine() {}

  /** The 1, 5 and 15 minute load averages, or the JVM's 1-minute figure off Linux. */
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
      List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8);
      for (String line : lines) {
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

  static String describe() {
    Runtime runtime = Runtime.getRuntime();
    return String.format(
        Locale.ROOT,
        "%d cores (availableProcessors), %s; %s %s (%s), %d MiB max heap, %s %s",
        runtime.availableProcessors(),
        cpuModel(),
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        System.getProperty("java.vendor"),
        runtime.maxMemory() >> 20,
        System.getProperty("os.name"),
        System.getProperty("os.version"));
  }
}
