package io.prefixlog.tools.replay;

import io.prefixlog.cli.Units;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The replay's figures next to the capture's, per request class (endpoint and model) and overall.
 *
 * <p>Latency: the original's is the capture's {@code latency_ms} (the proxy's request start to the
 * last answer byte); the replay's is this client's send to the last answer byte, over the answered
 * (2xx) requests. Both are nearest-rank percentiles.
 *
 * <p>Cached tokens: summed over the requests whose usage both sides know (the capture saw the
 * engine's usage, and the replay's answer carried one), so that both rates have the same
 * denominator requests. The rate is cached / prompt tokens, and the difference is in percentage
 * points (replay minus original).
 */
final class ReplayComparison {
  /** One class's figures (or the overall row's). */
  record Row(
      String name,
      long requests,
      long answered,
      double[] originalLatencyMs,
      double[] replayLatencyMs,
      long compared,
      long originalPrompt,
      long originalCached,
      long replayPrompt,
      long replayCached) {

    double originalRate() {
      return originalPrompt == 0 ? Double.NaN : 100.0 * originalCached / originalPrompt;
    }

    double replayRate() {
      return replayPrompt == 0 ? Double.NaN : 100.0 * replayCached / replayPrompt;
    }

    /** Replay minus original, in percentage points; NaN when either is unknown. */
    double differencePoints() {
      return replayRate() - originalRate();
    }
  }

  private final List<Row> rows;

  private ReplayComparison(List<Row> rows) {
    this.rows = List.copyOf(rows);
  }

  /** The classes in name order, then the overall row ({@code all}). */
  List<Row> rows() {
    return rows;
  }

  Row overall() {
    return rows.get(rows.size() - 1);
  }

  static ReplayComparison of(ReplayPlan plan, CaptureReplay.Outcome outcome) {
    Map<String, Accumulator> classes = new TreeMap<>();
    Accumulator all = new Accumulator("all");
    for (int i = 0; i < outcome.sent(); i++) {
      CapturedRequest request = plan.steps().get(i).request();
      Accumulator cls = classes.computeIfAbsent(request.requestClass(), Accumulator::new);
      for (Accumulator a : List.of(cls, all)) {
        a.add(request, outcome.status()[i], outcome.latencyNanos()[i], outcome.usage()[i]);
      }
    }
    Map<String, Row> ordered = new LinkedHashMap<>();
    classes.forEach((name, a) -> ordered.put(name, a.row()));
    ordered.put(all.name, all.row());
    return new ReplayComparison(new ArrayList<>(ordered.values()));
  }

  private static final class Accumulator {
    final String name;
    long requests;
    long answered;
    final List<Double> originalLatency = new ArrayList<>();
    final List<Double> replayLatency = new ArrayList<>();
    long compared;
    long originalPrompt;
    long originalCached;
    long replayPrompt;
    long replayCached;

    Accumulator(String name) {
      this.name = name;
    }

    void add(CapturedRequest request, int status, long latencyNanos, AnswerUsage usage) {
      requests++;
      if (request.latencyMs() != null) {
        originalLatency.add(request.latencyMs());
      }
      if (status / 100 == 2) {
        answered++;
        replayLatency.add(latencyNanos / 1e6);
      }
      if (request.hasUsage() && usage != null) {
        compared++;
        originalPrompt += request.promptTokens();
        originalCached += request.cachedTokens();
        replayPrompt += usage.promptTokens();
        replayCached += usage.cachedTokens();
      }
    }

    Row row() {
      return new Row(
          name,
          requests,
          answered,
          sorted(originalLatency),
          sorted(replayLatency),
          compared,
          originalPrompt,
          originalCached,
          replayPrompt,
          replayCached);
    }

    private static double[] sorted(List<Double> values) {
      double[] array = values.stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(array);
      return array;
    }
  }

  /** Nearest-rank percentile of sorted values; NaN when empty. */
  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /**
   * The table: per class, an {@code original} and a {@code replay} line with requests, latency
   * p50/p90/p99 and cached / prompt tokens, the replay line ending with the difference in points.
   */
  void print(PrintStream out) {
    int width = "class".length();
    for (Row row : rows) {
      width = Math.max(width, row.name().length());
    }
    String format = "  %-" + width + "s  %-8s  %9s  %25s  %s%n";
    out.printf(
        Locale.ROOT,
        format,
        "class",
        "",
        "requests",
        "latency p50/p90/p99 ms",
        "cached / prompt tokens (rate)");
    for (Row row : rows) {
      out.printf(
          Locale.ROOT,
          format,
          row.name(),
          "original",
          Units.count(row.requests()),
          latencies(row.originalLatencyMs()),
          tokens(row.originalCached(), row.originalPrompt(), row.originalRate()));
      double diff = row.differencePoints();
      out.printf(
          Locale.ROOT,
          format,
          "",
          "replay",
          Units.count(row.answered()),
          latencies(row.replayLatencyMs()),
          tokens(row.replayCached(), row.replayPrompt(), row.replayRate())
              + (Double.isNaN(diff) ? "" : String.format(Locale.ROOT, "  %+.1f points", diff)));
    }
  }

  private static String latencies(double[] sorted) {
    if (sorted.length == 0) {
      return "-";
    }
    return String.format(
        Locale.ROOT,
        "%.1f / %.1f / %.1f",
        percentile(sorted, 0.50),
        percentile(sorted, 0.90),
        percentile(sorted, 0.99));
  }

  private static String tokens(long cached, long prompt, double rate) {
    if (prompt == 0) {
      return "not reported";
    }
    return String.format(
        Locale.ROOT, "%s / %s (%.1f %%)", Units.count(cached), Units.count(prompt), rate);
  }
}
