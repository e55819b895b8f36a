package io.prefixlog.benchmarks.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stop-the-world pauses of a JVM, read from its {@code -Xlog:gc,safepoint:file=…:timemillis}
 * log (the format of JDK 17 and 25): every garbage collection pause and every safepoint (a GC pause
 * is one; deoptimisation, biased-lock revocation, code-cache sweeps and thread dumps are others),
 * each stamped with the wall-clock millisecond it ended, so that a benchmark can put them in the
 * interval whose tail they may explain.
 */
final class JvmPauses {
  /** The flag that makes a JVM write the log this class reads. */
  static String logFlag(Path file) {
    return "-Xlog:gc,safepoint:file=" + file.toAbsolutePath() + ":timemillis";
  }

  private static final Pattern GC =
      Pattern.compile("^\\[(\\d+)ms\\] GC\\(\\d+\\) Pause .* ([0-9.]+)ms$");
  private static final Pattern HEAP = Pattern.compile(" \\d+M->\\d+M\\((\\d+)M\\) ");
  private static final Pattern COLLECTOR = Pattern.compile("^\\[\\d+ms\\] Using (.+)$");
  private static final Pattern SAFEPOINT =
      Pattern.compile("^\\[(\\d+)ms\\] Safepoint \"([^\"]+)\".* Total: (\\d+) ns.*$");

  /**
   * One pause: when it ended (epoch ms), how long it took, whether it was a collection, and for a
   * collection the heap committed after it (MiB; -1 when the line does not say).
   */
  record Pause(long endMillis, double millis, boolean gc, String name, long heapMiB) {}

  /**
   * What the pauses ending within a window add up to; {@code maxGc} is the longest collection, and
   * {@code heapMiB} the heap committed after the window's last collection (-1: none).
   */
  record Window(
      int gcCount,
      double gcMillis,
      int safepoints,
      double safepointMillis,
      double max,
      double maxGc,
      long heapMiB) {}

  private final List<Pause> pauses;
  private final String collector;

  private JvmPauses(List<Pause> pauses, String collector) {
    this.pauses = List.copyOf(pauses);
    this.collector = collector;
  }

  /** The collector the JVM said it used ("Serial", "G1", …), or "?" when the log does not say. */
  String collector() {
    return collector;
  }

  /** The log's pauses; none when the file does not exist. */
  static JvmPauses read(Path file) throws IOException {
    List<Pause> pauses = new ArrayList<>();
    String collector = "?";
    if (!Files.exists(file)) {
      return new JvmPauses(pauses, collector);
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      Matcher using = COLLECTOR.matcher(line);
      if (using.matches()) {
        collector = using.group(1);
        continue;
      }
      Matcher gc = GC.matcher(line);
      if (gc.matches()) {
        Matcher heap = HEAP.matcher(line);
        pauses.add(
            new Pause(
                Long.parseLong(gc.group(1)),
                Double.parseDouble(gc.group(2)),
                true,
                "gc",
                heap.find() ? Long.parseLong(heap.group(1)) : -1));
        continue;
      }
      Matcher safepoint = SAFEPOINT.matcher(line);
      if (safepoint.matches()) {
        pauses.add(
            new Pause(
                Long.parseLong(safepoint.group(1)),
                Long.parseLong(safepoint.group(3)) / 1e6,
                false,
                safepoint.group(2),
                -1));
      }
    }
    return new JvmPauses(pauses, collector);
  }

  /**
   * The pauses that ended in {@code [fromMillis, toMillis)}: GC pauses, and every safepoint (GC
   * ones included, so the safepoint total is the whole time the application threads stood still).
   */
  Window window(long fromMillis, long toMillis) {
    int gcCount = 0;
    double gcMillis = 0;
    int safepoints = 0;
    double safepointMillis = 0;
    double max = 0;
    double maxGc = 0;
    long heapMiB = -1;
    for (Pause pause : pauses) {
      if (pause.endMillis() < fromMillis || pause.endMillis() >= toMillis) {
        continue;
      }
      if (pause.gc()) {
        gcCount++;
        gcMillis += pause.millis();
        maxGc = Math.max(maxGc, pause.millis());
        heapMiB = pause.heapMiB();
      } else {
        safepoints++;
        safepointMillis += pause.millis();
        max = Math.max(max, pause.millis());
      }
    }
    return new Window(gcCount, gcMillis, safepoints, safepointMillis, max, maxGc, heapMiB);
  }
}
